"""The capture's defaults, in a module the command line imports without the capture's own
imports (its ``--help`` states them)."""

# seconds one query may take before it is a failed query ("timed out after S s"): a
# retriever that never answers cannot hang the capture
TIMEOUT = 120.0
