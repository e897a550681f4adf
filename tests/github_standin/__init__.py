"""A GitHub stand-in for tests: a real HTTP server on 127.0.0.1 whose every request and response
is checked against GitHub's OpenAPI description. See README.md in this folder."""

from tests.github_standin.clients import pygithub
from tests.github_standin.hub import (
    ACTIONS_PERMISSIONS,
    READ_ONLY_PERMISSIONS,
    ArtifactSpec,
    DeploymentStatusSpec,
    Hub,
    JobSpec,
    MergeGroup,
    zip_bytes,
)
from tests.github_standin.model import ChangedFile, Step, StepClock, Symlink
from tests.github_standin.openapi import ApiDescription, Violation
from tests.github_standin.webhooks import load_webhook

__all__ = [
    "ACTIONS_PERMISSIONS",
    "READ_ONLY_PERMISSIONS",
    "ApiDescription",
    "ArtifactSpec",
    "ChangedFile",
    "DeploymentStatusSpec",
    "Hub",
    "JobSpec",
    "MergeGroup",
    "Step",
    "StepClock",
    "Symlink",
    "Violation",
    "load_webhook",
    "pygithub",
    "zip_bytes",
]
