"""claim-gate: decide whether an agent's completion claim is backed by independent evidence."""

__version__ = "0.1.0"

#: The id under which the gate itself signs verdicts and the evidence it collects.
GATE_ID = f"claim-gate/{__version__}"
