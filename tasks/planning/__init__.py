"""DialOp Planning: a user with private travel preferences and an assistant with a site catalogue and a search
tool plan a 3-stop itinerary (reference: ../shared/reference/dialop.md §3)."""
