"""DialOp Mediation: an assistant relays between two users with private calendars and books their flights."""
