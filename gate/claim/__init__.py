"""The claim part: the format, schema, loader, typed policy and the fact types every room shares."""
