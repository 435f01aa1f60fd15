"""Browser tests of the task pages: `harness` serves a Slurk page double and drives headless Chromium."""
