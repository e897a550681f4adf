"""Live evidence: the gate probes the deployed thing and reads state back (definitions, HTTP,
retries, observations to evidence). Entry point: `collect.probe_evidence`."""
