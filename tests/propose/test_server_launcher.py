"""server/launch.py: the exact `vllm serve` command for one or several GPUs, and its health check."""

from __future__ import annotations

import importlib.util
import socket

from openai_stub import Stub
from support import ROOT

spec = importlib.util.spec_from_file_location("launch", ROOT / "server" / "launch.py")
launch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(launch)


def test_command_for_one_gpu_and_for_several_nodes(capsys):
    assert launch.main(["--dry-run"]) == 0
    one = capsys.readouterr().out.split()
    assert one[:3] == ["vllm", "serve", "LLM4Code/Superoptimizer_Qwen7B"]
    assert one[one.index("--tensor-parallel-size") + 1] == "1" and "--distributed-executor-backend" not in one
    assert (
        launch.main(["--dry-run", "--tensor-parallel-size", "4", "--pipeline-parallel-size", "2", "--port", "9000"])
        == 0
    )
    many = capsys.readouterr().out.split()
    assert many[many.index("--tensor-parallel-size") + 1] == "4"
    assert many[many.index("--pipeline-parallel-size") + 1] == "2"
    assert many[many.index("--distributed-executor-backend") + 1] == "ray"
    assert many[many.index("--port") + 1] == "9000"


def test_health_check_against_an_openai_compatible_server(capsys):
    with Stub(lambda req, k: ["x"], models=("supercoder",)) as stub:
        ok, why = launch.healthy(stub.url, "supercoder")
        assert ok, why
        ok, why = launch.healthy(stub.url, "other-model")
        assert not ok and "not 'other-model'" in why
        assert launch.main(["--check", stub.url]) == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ok, why = launch.healthy(f"http://127.0.0.1:{port}", "supercoder", timeout=2)
    assert not ok and "does not answer" in why
