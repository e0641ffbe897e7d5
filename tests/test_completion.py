"""Shell completion, run for real: bash sources `reader completion bash` and completes commands,
options and topic names (from the store, at completion time) through the real `reader` command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from reader.cli import main
from tests.conftest import ROOT
from tests.terminal import run_in_terminal


@pytest.fixture
def shell_env(tmp_path):
    """PATH with a `reader` that runs this checkout, and a data directory with topics."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "reader"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m reader "$@"\n')
    shim.chmod(0o755)
    assert main(["topics", "add", "Robot Learning", "ti:robot"]) == 0  # beside the three examples
    env = {key: value for key, value in os.environ.items() if key.startswith("READER_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", HOME=str(tmp_path), PYTHONPATH=str(ROOT), TERM="xterm")
    return env


def bash_complete(env, *words: str) -> list[str]:
    """COMPREPLY from the script's function for the command line `words` (the last one being
    completed), as bash's programmable completion would call it."""
    script = (
        'source <(reader completion bash)\n'
        f'COMP_WORDS=("$@"); COMP_CWORD={len(words) - 1}\n'
        "_reader_complete\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(["bash", "-c", script, "bash", *words], env=env, capture_output=True, text=True, check=True)
    return result.stdout.splitlines()


def test_bash_completes_commands_options_and_choices(shell_env, capsys):
    assert bash_complete(shell_env, "reader", "s") == ["similar", "star", "sync"]
    every_command = bash_complete(shell_env, "reader", "")
    assert every_command == sorted(every_command) and "__complete" not in every_command
    assert {"completion", "config", "export", "list", "momentum", "sync", "topics", "unstar"} <= set(every_command)
    assert bash_complete(shell_env, "reader", "list", "--s") == ["--starred"]
    assert bash_complete(shell_env, "reader", "completion", "") == ["bash", "zsh", "fish"]
    assert bash_complete(shell_env, "reader", "topics", "re") == ["remove"]


def test_bash_completes_topic_names_from_the_store_quoted_for_bash(shell_env):
    assert bash_complete(shell_env, "reader", "sync", "--topic", "r") == ["RL\\ for\\ LLM\\ Agents", "Robot\\ Learning"]
    assert bash_complete(shell_env, "reader", "sync", "--topic", "'Rob") == ["'Robot Learning'"]
    assert bash_complete(shell_env, "reader", "topics", "remove", "Mech") == ["Mechanistic\\ Interpretability"]
    assert main(["topics", "add", "Mechanics", "ti:mechanics"]) == 0  # a name added since: read at completion time
    assert bash_complete(shell_env, "reader", "list", "--topic", "Mech") == ["Mechanics", "Mechanistic\\ Interpretability"]


def test_bash_completes_file_names_for_paths(shell_env, tmp_path, monkeypatch):
    (tmp_path / "refs-2026.bib").write_text("")
    monkeypatch.chdir(tmp_path)
    assert bash_complete(shell_env, "reader", "export", "--starred", "-o", "refs") == ["refs-2026.bib"]
    assert bash_complete(shell_env, "reader", "export", "--update", "re") == ["refs-2026.bib"]


def test_tab_in_an_interactive_bash_completes_a_topic_name(shell_env, tmp_path):
    rc = tmp_path / "bashrc"
    rc.write_text("source <(reader completion bash)\nPS1='READY> '\nbind 'set bell-style none'\n")
    run = run_in_terminal(
        ["bash", "--noprofile", "--rcfile", str(rc), "-i"], env=shell_env,
        keys=[("READY> ", "reader sync --topic Rob\t"), ("Learning", "\x01echo \r"), ("READY> ", "exit\r")],
        deadline=30,
    )
    assert "reader sync --topic Robot\\ Learning" in run.output, run.output  # the completed line, as typed
    assert "\rreader sync --topic Robot Learning\r\n" in run.output, run.output  # echo's output: one argument, unquoted


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_other_shells_scripts_are_valid(shell_env, shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    script = subprocess.run(["reader", "completion", shell], env=shell_env, capture_output=True, text=True, check=True).stdout
    check = subprocess.run([shell, "-n"], input=script, env=shell_env, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_the_helper_stays_out_of_help(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "completion" in out and "__complete" not in out
