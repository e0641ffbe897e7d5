"""Shell completion, run for real: bash sources `reader completion bash` and completes commands,
options and topic, tag and watch names (from the store, at completion time) through the real
`reader` command; bash, zsh and fish at a pseudo-terminal insert names that hold shell syntax so
that the shell reads exactly the name."""

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


def bash_complete(env, *words: str, region: str | None = None) -> list[str]:
    """COMPREPLY from the script's function for the command line `words` (the last one being
    completed), as bash's programmable completion would call it: `region` is the part of the last
    word readline replaces ($2), by default all of it but an opening quote."""
    current = words[-1]
    if region is None:
        region = current[1:] if current[:1] in ("'", '"') else current
    script = (
        "source <(reader completion bash)\n"
        f'COMP_WORDS=("${{@:2}}"); COMP_CWORD={len(words) - 1}\n'
        '_reader_complete reader "$1" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        '[[ ${#COMPREPLY[@]} == 0 ]] || printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(["bash", "-c", script, "bash", region, *words], env=env, capture_output=True, text=True, check=True)
    return result.stdout.splitlines()


@pytest.mark.slow
def test_bash_completes_commands_options_and_choices(shell_env, capsys):
    assert bash_complete(shell_env, "reader", "s") == ["similar", "star", "sync"]
    every_command = bash_complete(shell_env, "reader", "")
    assert every_command == sorted(every_command) and "__complete" not in every_command
    assert {"completion", "config", "export", "list", "momentum", "sync", "topics", "unstar"} <= set(every_command)
    assert bash_complete(shell_env, "reader", "list", "--s") == ["--sort", "--starred"]
    assert bash_complete(shell_env, "reader", "list", "--sort", "") == ["newest", "updated", "title", "author", "foryou"]
    assert bash_complete(shell_env, "reader", "completion", "") == ["bash", "zsh", "fish"]
    assert bash_complete(shell_env, "reader", "topics", "re") == ["remove"]
    assert bash_complete(shell_env, "reader", "a") == ["add"]
    assert bash_complete(shell_env, "reader", "add", "--") == ["--help", "--star"]
    assert bash_complete(shell_env, "reader", "add", "2609.10042", "") == []  # an id is typed or pasted, not completed


@pytest.mark.slow
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


# A name of each kind holding what a shell would run, expand or split: were one inserted unquoted,
# Enter would create a file named after the kind (t1, t2, ...) in the shell's directory.
HOSTILE = '$(touch {k}1) `touch {k}2` it\'s "q" * a\\b !x end-{kind}'
NAME_KINDS = {"tag": "t", "topic": "p", "watch": "w"}


@pytest.fixture
def hostile_names(shell_env, data_dir):
    """The hostile tag, topic and watch, by kind; each starts with Z and a letter of its own."""
    from reader.store import Store

    names = {kind: f"Z{k} " + HOSTILE.format(k=k, kind=kind) for kind, k in NAME_KINDS.items()}
    store = Store(data_dir)
    store.set_tags(["2401.00001"], add=[names["tag"]])
    store.add_topic(names["topic"], "ti:robot")
    store.add_watch(names["watch"], "ti:robot")
    return names


@pytest.mark.slow
def test_bash_quotes_a_name_the_way_its_word_began(shell_env, hostile_names):
    assert bash_complete(shell_env, "reader", "list", "--tag", "Zt") == [
        r"Zt\ \$\(touch\ t1\)\ \`touch\ t2\`\ it\'s\ \"q\"\ \*\ a\\b\ \!x\ end-tag"
    ]
    assert bash_complete(shell_env, "reader", "list", "--topic", '"zp') == [  # the name's own case
        r'''"Zp \$(touch p1) \`touch p2\` it's \"q\" * a\\b "'!'"x end-topic"'''  # ! outside: no history expansion
    ]
    assert bash_complete(shell_env, "reader", "watches", "remove", "'Zw") == [
        r"""'Zw $(touch w1) `touch w2` it'\''s "q" * a\b !x end-watch'"""
    ]
    # what the shell reads past a quote opened mid-word, or in $'...', is not guessed at: nothing
    assert bash_complete(shell_env, "reader", "list", "--tag", 'Zt"\\$', region="\\$") == []
    assert bash_complete(shell_env, "reader", "list", "--tag", "$'Zt", region="Zt") == []


def test_bash_reads_candidates_one_a_line_unglobbed(shell_env, tmp_path, monkeypatch):
    for name in ("Zf[1].bib", "Zf1.bib", "Zf *.bib"):
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    assert sorted(bash_complete(shell_env, "reader", "export", "--update", "Zf")) == ["Zf *.bib", "Zf1.bib", "Zf[1].bib"]


def shell_at_a_terminal(shell: str, env: dict[str, str], home) -> list[str]:
    """argv for an interactive `shell` with reader's completion loaded and the prompt READY>,
    otherwise as plain as it comes; its rc files go in `home`."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    if shell == "bash":
        env["PS1"] = "READY> "  # the completion script itself is sourced at the prompt
        return ["bash", "--norc", "--noprofile", "-i"]
    if shell == "zsh":
        env["ZDOTDIR"] = str(home)
        (home / ".zshrc").write_text("PS1='READY> '\nbindkey -e\nautoload -U compinit && compinit -u -D\nsource <(reader completion zsh)\n")
        return ["zsh", "-i"]
    init = "function fish_prompt; printf 'READY> '; end; set -g fish_autosuggestion_enabled 0; reader completion fish | source"
    return ["fish", "--no-config", "-i", "-C", init]


@pytest.mark.slow
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_tab_inserts_hostile_names_so_the_shell_reads_them_exactly(shell, shell_env, hostile_names, tmp_path):
    """Tab completes each name unquoted, after " and after '; Enter then runs printf on the line
    (Ctrl+A puts it in front), which prints every argument the shell read between < and >."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "a file for * to match").write_text("")
    argv = shell_at_a_terminal(shell, shell_env, tmp_path)
    keys = [("READY> ", "source <(reader completion bash)\r")] if shell == "bash" else []
    cases = [(kind, start) for kind in hostile_names for start in ("", '"', "'")]
    for number, (kind, start) in enumerate(cases):
        keys += [
            ("READY> ", f"reader list --{kind} {start}Z{NAME_KINDS[kind]}\t"),
            (f"end-{kind}", f"\x01printf '{number}<%s>\\n' \r"),
        ]
    run = run_in_terminal(argv, env=shell_env, cwd=str(cwd), size=(200, 30), keys=[*keys, ("READY> ", "exit\r")], deadline=120)
    for number, (kind, start) in enumerate(cases):
        printed = f"{number}<reader>\r\n{number}<list>\r\n{number}<--{kind}>\r\n{number}<{hostile_names[kind]}>\r\n"
        assert printed in run.output, (kind, start, run.output)
    assert sorted(path.name for path in cwd.iterdir()) == ["a file for * to match"]  # no touch ran
    assert run.status == 0, run.output


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
