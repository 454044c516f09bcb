"""Working sessions of agents and people: the event format, its reader and the write API."""
