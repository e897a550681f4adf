"""The action's image, built from the real Dockerfile and run the way the GitHub runner runs it."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import threading
from pathlib import Path

import pytest

from gate import __version__
from tests.container.engine import BASE_IMAGE, ROOT, Build, Engine, EngineError
from tests.container.pins import expected_runtime, normalize
from tests.container.runner import EVENT_PATH, WORKSPACE, Mount, RunnerDirs, run_like_runner
from tests.image_reference import RELEASE_OWNER, action_image, pulled, released

pytestmark = pytest.mark.container

EXAMPLE_CLAIM = ROOT / "examples" / "claim.json"
DECIDED_AT = "2026-08-27T18:04:10Z"
#: What the gate adds to its base (the venv with the pinned dependencies); a budget, so a heavy
#: new dependency is a decision someone makes on purpose.
ADDED_BYTES_BUDGET = 80 * 1024 * 1024


def _python(code: str) -> list[str]:
    return ["python3", "-c", code]


@pytest.fixture
def dirs(tmp_path: Path) -> RunnerDirs:
    dirs = RunnerDirs.create(tmp_path, event={"action": "opened", "number": 7})
    shutil.copyfile(EXAMPLE_CLAIM, dirs.workspace / "claim.json")
    return dirs


def test_image_has_the_exec_form_module_entrypoint(
    container_engine: Engine, gate_image: Build
) -> None:
    config = container_engine.image_config(gate_image.image)
    assert config["Entrypoint"] == ["python3", "-I", "-m", "gate.faces.action.main"]


def test_claim_gate_version_runs_in_the_image(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    result = run_like_runner(
        container_engine, gate_image.image, dirs, entrypoint=["claim-gate"], args=["--version"]
    )
    assert (result.returncode, result.stdout.strip()) == (0, f"claim-gate {__version__}")


def test_verify_in_the_image_passes_with_the_trusted_verifier(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    result = run_like_runner(
        container_engine,
        gate_image.image,
        dirs,
        entrypoint=["claim-gate"],
        args=[
            "verify",
            "claim.json",
            "--trusted-verifier",
            "gitreal-gate/*",
            "--now",
            DECIDED_AT,
            "--format",
            "json",
            "--output",
            "completed.json",
        ],
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The relative paths resolved in the mounted workspace: the record came back to the host.
    record = json.loads((dirs.workspace / "completed.json").read_text(encoding="utf-8"))
    assert record["verdict"]["state"] == "verified"


def test_verify_in_the_image_is_unverified_without_trust(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    result = run_like_runner(
        container_engine,
        gate_image.image,
        dirs,
        entrypoint=["claim-gate"],
        args=["verify", "claim.json", "--now", DECIDED_AT],
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("UNVERIFIED: claim.json")
    assert "untrusted_verifier" in result.stdout


def test_runner_environment_reaches_python_with_hyphenated_inputs(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    probe = (
        "import json, os, sys\n"
        "json.dump({'env': dict(os.environ), 'cwd': os.getcwd(),\n"
        "           'event': json.load(open(os.environ['GITHUB_EVENT_PATH'])),\n"
        "           'event_writable': os.access(os.environ['GITHUB_EVENT_PATH'], os.W_OK)},\n"
        "          sys.stdout)\n"
    )
    result = run_like_runner(
        container_engine,
        gate_image.image,
        dirs,
        inputs={"claim-path": ".claim.json", "github-token": "t0ken", "mode": "observe"},
        env={"GITHUB_API_URL": "http://127.0.0.1:9"},
        entrypoint=_python(probe),
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    env = seen["env"]
    assert env["INPUT_CLAIM-PATH"] == ".claim.json"
    assert env["INPUT_GITHUB-TOKEN"] == "t0ken"
    assert env["INPUT_MODE"] == "observe"
    assert env["GITHUB_API_URL"] == "http://127.0.0.1:9"
    assert env["GITHUB_EVENT_PATH"] == EVENT_PATH
    assert env["HOME"] == "/github/home"
    assert seen["cwd"] == WORKSPACE
    assert seen["event"] == {"action": "opened", "number": 7}
    assert seen["event_writable"] is False


def test_file_commands_written_in_the_container_reach_the_host(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs, tmp_path: Path
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "policy.yml").write_text("requires: [test_run]\n", encoding="utf-8")
    writer = (
        "import os\n"
        "open(os.environ['GITHUB_OUTPUT'], 'a').write('verdict=verified\\n')\n"
        "open(os.environ['GITHUB_STEP_SUMMARY'], 'a').write('# summary\\n')\n"
        "print(open('/extra/policy.yml').read(), end='')\n"
    )
    result = run_like_runner(
        container_engine,
        gate_image.image,
        dirs,
        mounts=[Mount(extra, "/extra", read_only=True)],
        entrypoint=_python(writer),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "requires: [test_run]\n"
    assert dirs.output_file.read_text(encoding="utf-8") == "verdict=verified\n"
    assert dirs.summary_file.read_text(encoding="utf-8") == "# summary\n"


def test_gate_is_installed_in_the_image_not_taken_from_the_workspace(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    # A decoy package in the workspace must not shadow the installed one.
    (dirs.workspace / "gate").mkdir()
    (dirs.workspace / "gate" / "__init__.py").write_text("raise SystemExit(99)\n", "utf-8")
    probe = "import gate, sys; print(gate.__file__); print(sys.prefix)"
    result = run_like_runner(
        container_engine,
        gate_image.image,
        dirs,
        entrypoint=["python3", "-I", "-c", probe],
    )
    assert result.returncode == 0, result.stderr
    module_file, prefix = result.stdout.split()
    assert prefix == "/opt/claim-gate"
    assert module_file.startswith("/opt/claim-gate/lib/")
    # Nor does the image's own entrypoint (`python3 -I -m gate.faces.action.main`) import the decoy.
    entry = run_like_runner(container_engine, gate_image.image, dirs)
    assert entry.returncode != 99, entry.stdout + entry.stderr
    # The console script does not run from the working directory either.
    version = run_like_runner(
        container_engine, gate_image.image, dirs, entrypoint=["claim-gate"], args=["--version"]
    )
    assert version.returncode == 0, version.stderr


def test_image_carries_no_compiler_and_no_build_leftovers(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    probe = (
        "import glob, importlib.util, json, os, shutil\n"
        "names = ['gcc', 'cc', 'c++', 'g++', 'clang', 'tcc', 'make']\n"
        "found = {n: shutil.which(n) for n in names if shutil.which(n)}\n"
        "found.update({p: p for p in glob.glob('/usr/bin/*-gcc*') + glob.glob('/usr/lib/gcc/*')})\n"
        "print(json.dumps({'found': found, 'src': os.path.exists('/src'),\n"
        "                  'pip': importlib.util.find_spec('pip') is not None}))\n"
    )
    result = run_like_runner(container_engine, gate_image.image, dirs, entrypoint=_python(probe))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"found": {}, "src": False, "pip": False}


def test_image_size_stays_within_budget(container_engine: Engine, gate_image: Build) -> None:
    base = container_engine.image_size(BASE_IMAGE)
    image = container_engine.image_size(gate_image.image)
    added = image - base
    print(f"image {image / 1e6:.1f} MB = base {base / 1e6:.1f} MB + gate {added / 1e6:.1f} MB")
    assert 0 < added <= ADDED_BYTES_BUDGET
    # docs/image.md quotes the figure; it must stay roughly true (dependency updates move it a bit).
    doc = (ROOT / "docs" / "image.md").read_text("utf-8")
    quoted = re.search(r"the gate adds \*\*(\d+) MB\*\*", doc)
    assert quoted, "docs/image.md no longer quotes the size the gate adds"
    assert abs(int(quoted.group(1)) - added / 1e6) <= 0.15 * added / 1e6, (quoted[0], added)


def test_image_holds_exactly_the_pinned_distributions(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    probe = (
        "import importlib.metadata as m, json\n"
        "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))\n"
    )
    result = run_like_runner(container_engine, gate_image.image, dirs, entrypoint=_python(probe))
    assert result.returncode == 0, result.stderr
    installed = {normalize(name): version for name, version in json.loads(result.stdout).items()}
    assert installed.pop("claim-gate") == __version__
    # A difference means a dependency changed what it pulls in: pin it in image-constraints.txt.
    assert installed == expected_runtime()


def test_container_reaches_a_server_the_test_starts_on_loopback(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    # The Action tests' GitHub stand-in listens on 127.0.0.1; --network host lets the image in.
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"path": self.path}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            """Keep the test output quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        probe = (
            "import os, urllib.request\n"
            "print(urllib.request.urlopen(os.environ['GITHUB_API_URL'] + '/repos/o/r').read()"
            ".decode())\n"
        )
        result = run_like_runner(
            container_engine,
            gate_image.image,
            dirs,
            env={"GITHUB_API_URL": f"http://127.0.0.1:{server.server_address[1]}"},
            entrypoint=_python(probe),
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"path": "/repos/o/r"}


def test_the_image_runs_under_the_reference_the_release_names(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    # The pinned reference the release commit's action.yml names, for the tests' account.
    digest = container_engine.image_digest(gate_image.image)
    assert gate_image.image == pulled(released(action_image(), RELEASE_OWNER, digest))
    assert gate_image.image.startswith(f"ghcr.io/octo-org/claim-gate:v{__version__}@sha256:")
    entry = run_like_runner(container_engine, gate_image.image, dirs,
                            env={"GITHUB_EVENT_NAME": "push"}, inputs={"github-token": "t"})
    assert "claim-gate" in entry.stdout + entry.stderr


def test_a_pin_to_another_digest_does_not_run_the_image(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    name = gate_image.image.split("@", 1)[0]
    with pytest.raises(EngineError, match="image not known"):
        run_like_runner(container_engine, f"{name}@sha256:{'0' * 64}", dirs,
                        entrypoint=["claim-gate"], args=["--version"])


def test_main_s_unreleased_reference_cannot_name_any_image(
    container_engine: Engine, gate_image: Build, dirs: RunnerDirs
) -> None:
    # OWNER is upper case, which no image name may be: a commit between releases pulls nothing,
    # rather than whatever an account called `owner` may have published.
    with pytest.raises(EngineError, match="must be lowercase"):
        run_like_runner(container_engine, pulled(action_image()), dirs,
                        entrypoint=["claim-gate"], args=["--version"])
