"""Tests that build the action's image with buildah and run it with podman (marker `container`)."""
