"""How the code's modules depend on each other, read with `ast` (nothing under test is imported).

The rules (docs/architecture.md, Layout), for every module of reader/ and benchmarks/:
1. No import cycle. Every import counts wherever it stands, inside a function too (a lazy import is
   still a dependency); only those under `if TYPE_CHECKING:` do not. `from pkg import name` depends
   on pkg/__init__.py unless `name` is a submodule (then on the submodule alone).
2. No import of another module's private name (`_x`; dunders aside), nor of a private module from
   outside its package.
3. App and CLI code (reader/app/, reader/commands/, reader/cli.py) imports nothing from
   reader/store/files.py, nor `write_atomic` or `shard_of` from any module of reader/store/.
And the layering: nothing under arxiv/, store/, core/, search_index/, sync/, service/ imports textual,
reader.app, reader.commands or reader.cli (under TYPE_CHECKING neither); nothing under the layers
the service stands on (arxiv/, store/, core/, search_index/, fulltext/) nor sync/ imports reader.service.
And composition over mixins: no class under reader/service/ or reader/store/ inherits from a
`*Methods` mixin (a mixin redeclares its host's private members; a collaborator is given what
it needs). And for tests/: no module imports a test module (tests/**/test_*.py); shared helpers live in
tests/helpers/, shared fixtures in tests/conftest.py. And no module under reader/ is over MAX_LINES
lines: one that grows is split by meaning, each part named for what it holds. And a worker's result
comes back as a message its screen or widget handles: no `call_from_thread` under reader/app/ but in
the methods CALLS_FROM_THREAD names, each with why. And a part of a screen (a `ScreenPart`) reaches
no private member of its screen (`self.screen._x`): it uses what its host Protocol names, or posts
a message. And one meaning per word: no module or class under reader/core/ is named for
"library" (the papers worked on are the catalog, core/catalog.py).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("reader", "benchmarks")
APP_AND_CLI = ("reader.app", "reader.commands", "reader.cli")
STORAGE_INTERNALS = ("write_atomic", "shard_of")
LOWER_LAYERS = tuple(f"reader.{layer}" for layer in ("arxiv", "store", "core", "search_index", "meaning", "sync", "service"))
UPPER_LAYERS = ("textual", "reader.app", "reader.commands", "reader.cli")
# What the service uses, and sync, which the service runs: none of them reaches back up into it.
BELOW_THE_SERVICE = tuple(f"reader.{layer}" for layer in ("arxiv", "store", "core", "search_index", "fulltext", "sync"))


@dataclass(frozen=True)
class Import:
    importer: str  # the importing module's dotted name
    where: str  # its file and the statement's line, "reader/cli.py:12"
    module: str  # the module named by the statement (`from module import name`, `import module`)
    name: str | None  # the name taken from it (None for `import module`)
    target: str  # what the statement depends on: the submodule when `name` is one, else `module`
    type_checking: bool  # under `if TYPE_CHECKING:`


def modules(root: Path) -> dict[str, Path]:
    """Every module of the packages under `root`, by dotted name (a package by its __init__.py)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_bytes(), str(path))


def imports(root: Path) -> list[Import]:
    """Every import statement of the packages under `root`, read once per state of their files:
    six rules ask for all of them, and parsing the whole tree again for each was most of this
    file's time."""
    known = modules(root)
    stamps = tuple((path, path.stat().st_mtime_ns, path.stat().st_size) for path in known.values())
    return list(_imports(root, stamps))


@functools.cache
def _imports(root: Path, stamps: tuple[tuple[Path, int, int], ...]) -> tuple[Import, ...]:
    known = modules(root)
    found = []
    for importer, path in known.items():
        tree = parsed(path)
        relative = path.relative_to(root).as_posix()
        for node, type_checking in _import_statements(tree, type_checking=False):
            where = f"{relative}:{node.lineno}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.append(Import(importer, where, alias.name, None, alias.name, type_checking))
                continue
            module = _absolute(node, importer, is_package=path.name == "__init__.py")
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                target = submodule if submodule in known else module
                found.append(Import(importer, where, module, alias.name, target, type_checking))
    return tuple(found)


def _import_statements(node: ast.AST, *, type_checking: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement in `node`, at any depth, and whether it sits under `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, type_checking
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for statement in child.body:
                yield from _import_statements(ast.Module(body=[statement], type_ignores=[]), type_checking=True)
            for statement in child.orelse:
                yield from _import_statements(ast.Module(body=[statement], type_ignores=[]), type_checking=type_checking)
        else:
            yield from _import_statements(child, type_checking=type_checking)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _absolute(node: ast.ImportFrom, importer: str, *, is_package: bool) -> str:
    """The dotted name `from ... import` names, relative forms resolved against the importer."""
    if not node.level:
        return node.module or ""
    package = importer.split(".") if is_package else importer.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# --- the rules -----------------------------------------------------------------------------------


def cycles(root: Path) -> list[str]:
    """Each import cycle (one per knot of modules that reach each other): its modules, and the
    shortest loop through them with the line of each import."""
    known = modules(root)
    edges: dict[str, dict[str, str]] = {name: {} for name in known}
    for imp in imports(root):
        if not imp.type_checking and imp.target in known and imp.target != imp.importer:
            edges[imp.importer].setdefault(imp.target, imp.where)
    problems = []
    for knot in _strongly_connected(edges):
        if len(knot) < 2:
            continue
        start = min(knot)
        loop = _shortest_loop(edges, start, knot)
        steps = " -> ".join(f"{module} ({edges[module][following]})" for module, following in zip(loop, loop[1:]))
        problems.append(f"import cycle among {', '.join(sorted(knot))}: {steps} -> {start}")
    return sorted(problems)


def _strongly_connected(edges: dict[str, dict[str, str]]) -> list[set[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit to meet)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    knots = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, following = work[-1]
            for successor in following:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    knot = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        knot.add(member)
                        if member == node:
                            break
                    knots.append(knot)
    return knots


def _shortest_loop(edges: dict[str, dict[str, str]], start: str, knot: set[str]) -> list[str]:
    """The modules of the shortest path from `start` back to it within `knot`, start first and last."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for successor in sorted(edges[module]):
                if successor == start:
                    path = [module]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if successor in knot and successor not in came_from:
                    came_from[successor] = module
                    following.append(successor)
        frontier = following
    raise AssertionError(f"{start} is in a cycle but no loop leads back to it")


def private_imports(root: Path) -> list[str]:
    problems = []
    for imp in imports(root):
        if imp.name is not None and _is_private(imp.name):
            problems.append(f"{imp.where}: {imp.importer} imports the private name {imp.name} from {imp.module}")
        parts = imp.target.split(".")
        for depth, part in enumerate(parts):
            owner = ".".join(parts[:depth])
            if _is_private(part) and not _within(imp.importer, (owner,)):
                problems.append(f"{imp.where}: {imp.importer} imports the private module {imp.target}")
                break
    return _by_place(problems)


def storage_internals(root: Path) -> list[str]:
    problems = []
    for imp in imports(root):
        if not _within(imp.importer, APP_AND_CLI):
            continue
        if _within(imp.target, ("reader.store.files",)):
            problems.append(f"{imp.where}: {imp.importer} imports from reader.store.files (a storage internal)")
        elif _within(imp.module, ("reader.store",)) and imp.name in STORAGE_INTERNALS:
            problems.append(f"{imp.where}: {imp.importer} imports {imp.name} from {imp.module} (a storage internal)")
    return _by_place(problems)


def layering(root: Path) -> list[str]:
    return _by_place(
        f"{imp.where}: {imp.importer} (a lower layer) imports {imp.target}"
        for imp in imports(root)
        if _within(imp.importer, LOWER_LAYERS) and _within(imp.target, UPPER_LAYERS)
    )


def service_reached_from_below(root: Path) -> list[str]:
    return _by_place(
        f"{imp.where}: {imp.importer} imports {imp.target}, of the service above it"
        for imp in imports(root)
        if _within(imp.importer, BELOW_THE_SERVICE) and _within(imp.target, ("reader.service",))
    )


def _by_place(problems: Iterable[str]) -> list[str]:
    """Problems that start with "file:line:", by file and line."""

    def place(problem: str) -> tuple[str, int]:
        file, line, _ = problem.split(":", 2)
        return file, int(line)

    return sorted(problems, key=place)


# --- the code as it is ---------------------------------------------------------------------------


def assert_none(problems: list[str]) -> None:
    """A rule found nothing in the code as it is; else the failure lists each problem on a line."""
    assert not problems, "\n".join(problems)


def test_every_module_is_read():
    found = modules(ROOT)
    assert {"reader", "reader.cli", "reader.app.screens.main", "reader.store.files", "benchmarks.probe"} <= set(found)
    assert len(imports(ROOT)) > 500


def test_no_import_cycle():
    assert_none(cycles(ROOT))


def test_no_private_name_is_imported():
    assert_none(private_imports(ROOT))


def test_app_and_cli_code_keep_off_storage_internals():
    assert_none(storage_internals(ROOT))


def test_lower_layers_import_neither_textual_nor_the_app_nor_the_cli():
    assert_none(layering(ROOT))


def test_sync_and_the_layers_below_the_service_do_not_import_it():
    assert_none(service_reached_from_below(ROOT))


# --- each rule can fail --------------------------------------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def findings(rule: Callable[..., list[str]], root: Path, files: dict[str, str], *args) -> list[str]:
    """What `rule` reports on a tree of `files` (path: text) written under `root`."""
    return rule(_tree(root, files), *args)


def test_a_cycle_through_a_function_level_import_is_reported_with_its_modules_and_lines(tmp_path):
    assert findings(
        cycles,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/a.py": "from reader import b\n",
            "reader/b.py": "import os\n\n\ndef late():\n    from reader.c import thing\n    return thing\n",
            "reader/c.py": "from reader.a import b\n",  # `b` is a name of reader.a, not a module of it
        },
    ) == [
        "import cycle among reader.a, reader.b, reader.c: reader.a (reader/a.py:1) -> reader.b (reader/b.py:5)"
        " -> reader.c (reader/c.py:1) -> reader.a"
    ]


def test_a_type_checking_import_makes_no_cycle(tmp_path):
    assert not findings(
        cycles,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/d.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from reader.e import E\n",
            "reader/e.py": "import typing\n\nfrom reader.d import D\n\nif typing.TYPE_CHECKING:\n    from reader import d\n",
        },
    )
    # ... though the same import outside the guard does.
    (tmp_path / "reader/d.py").write_text("def late():\n    from .e import E\n")
    assert cycles(tmp_path) == ["import cycle among reader.d, reader.e: reader.d (reader/d.py:2) -> reader.e (reader/e.py:3) -> reader.d"]


def test_a_package_importing_its_own_submodules_is_no_cycle(tmp_path):
    assert not findings(
        cycles,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/store/__init__.py": "from reader.store.files import write\n",
            "reader/store/files.py": "from reader.store.schema import FORMAT\n",
            "reader/store/schema.py": "FORMAT = 1\n",
        },
    )
    (tmp_path / "reader/store/schema.py").write_text("from reader.store import write\n")  # back through __init__.py
    assert cycles(tmp_path) == [
        "import cycle among reader.store, reader.store.files, reader.store.schema: reader.store (reader/store/__init__.py:1)"
        " -> reader.store.files (reader/store/files.py:1) -> reader.store.schema (reader/store/schema.py:1) -> reader.store"
    ]


def test_a_private_import_is_reported(tmp_path):
    assert findings(
        private_imports,
        tmp_path,
        {
            "reader/__init__.py": "__version__ = '1'\n",
            "reader/cli.py": "from reader import __version__\nfrom reader.commands.common import _store as store, open_store\n",
            "reader/commands/__init__.py": "",
            "reader/commands/common.py": "def _store(): ...\n",
            "benchmarks/probe.py": "def run():\n    from .search import _fresh\n    import textual._compositor\n",
            "benchmarks/search.py": "",
        },
    ) == [
        "benchmarks/probe.py:2: benchmarks.probe imports the private name _fresh from benchmarks.search",
        "benchmarks/probe.py:3: benchmarks.probe imports the private module textual._compositor",
        "reader/cli.py:2: reader.cli imports the private name _store from reader.commands.common",
    ]


def test_write_atomic_and_store_files_under_app_or_commands_are_reported(tmp_path):
    assert findings(
        storage_internals,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/store/__init__.py": "from reader.store.files import shard_of, write_atomic\n",
            "reader/store/files.py": "def write_atomic(): ...\ndef shard_of(): ...\n",
            "reader/store/user_state.py": "from reader.store.files import write_atomic\n",  # the store itself may
            "reader/app/__init__.py": "",
            "reader/app/screens/export.py": "def save():\n    from reader.store import write_atomic\n",
            "reader/commands/digest.py": "from ..store import files\n",
            "reader/cli.py": "import reader.store.files as f\nfrom reader.store.files import shard_of\n",
        },
    ) == [
        "reader/app/screens/export.py:2: reader.app.screens.export imports write_atomic from reader.store (a storage internal)",
        "reader/cli.py:1: reader.cli imports from reader.store.files (a storage internal)",
        "reader/cli.py:2: reader.cli imports from reader.store.files (a storage internal)",
        "reader/commands/digest.py:1: reader.commands.digest imports from reader.store.files (a storage internal)",
    ]


def test_a_lower_layer_importing_the_app_or_textual_is_reported(tmp_path):
    assert findings(
        layering,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/cli.py": "",
            "reader/service/views.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from textual.app import App\n",
            "reader/core/text.py": "def f():\n    from reader import cli\n",
            "reader/app/main.py": "import textual\nfrom reader.core import text\n",  # the app may
        },
    ) == [
        "reader/core/text.py:2: reader.core.text (a lower layer) imports reader.cli",
        "reader/service/views.py:3: reader.service.views (a lower layer) imports textual.app",
    ]


def test_sync_or_the_store_importing_the_service_is_reported(tmp_path):
    assert findings(
        service_reached_from_below,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/service/__init__.py": "",
            "reader/service/feature_cache.py": "class FeatureKeeper: ...\n",
            "reader/sync/syncer.py": "from reader.service.feature_cache import FeatureKeeper\n",
            "reader/store/store.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import reader.service\n",
            "reader/service/library.py": "from reader.sync import syncer\n",  # the service may run sync
            "reader/app/main.py": "from reader.service import feature_cache\n",  # and the app use the service
        },
    ) == [
        "reader/store/store.py:3: reader.store.store imports reader.service, of the service above it",
        "reader/sync/syncer.py:1: reader.sync.syncer imports reader.service.feature_cache, of the service above it",
    ]


# --- the app reaches the cache through its service -------------------------------------------------


def stores_reached(root: Path) -> list[str]:
    """Where app code reaches the store behind the service (`service.store`, `self.service.store`)."""
    problems = []
    for module, path in modules(root).items():
        if not _within(module, ("reader.app",)):
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Attribute) and node.attr == "store" and _names_service(node.value):
                problems.append(f"{path.relative_to(root).as_posix()}:{node.lineno}: {module} reaches service.store")
    return _by_place(problems)


def _names_service(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "service") or (isinstance(node, ast.Attribute) and node.attr == "service")


def test_no_screen_reaches_the_store_behind_the_service():
    assert_none(stores_reached(ROOT))


def test_a_screen_reaching_the_store_is_reported(tmp_path):
    assert findings(
        stores_reached,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/app/screens/sync.py": "def run(self, service):\n    self.service.store.sync()\n    return service.store, self.store\n",
        },
    ) == [
        "reader/app/screens/sync.py:2: reader.app.screens.sync reaches service.store",
        "reader/app/screens/sync.py:3: reader.app.screens.sync reaches service.store",
    ]


# --- one library service for the app's life ----------------------------------------------------------


def services_assigned(root: Path) -> list[str]:
    """Where app code assigns a service after construction: any `x.service = ...` (or setattr of
    "service") but `self.service = ...` in an `__init__`. The demo set gives way to the cache
    inside the one service; a service swapped by assignment leaves every earlier holder stale."""
    problems = []
    for module, path in modules(root).items():
        if _within(module, ("reader.app",)):
            relative = path.relative_to(root).as_posix()
            problems += [f"{relative}:{line}: {module} assigns {what}" for line, what in _service_assignments(parsed(path))]
    return _by_place(problems)


def _service_assignments(node: ast.AST, function: str | None = None) -> Iterator[tuple[int, str]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _service_assignments(child, child.name)
            continue
        targets: list[ast.expr] = []
        if isinstance(child, ast.Assign):
            targets = [leaf for target in child.targets for leaf in _assigned(target)]
        elif isinstance(child, ast.AugAssign | ast.AnnAssign) and child.value is not None:
            targets = _assigned(child.target)
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr == "service":
                constructing = function == "__init__" and isinstance(target.value, ast.Name) and target.value.id == "self"
                if not constructing:
                    yield child.lineno, f"{ast.unparse(target)} after construction"
        if (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Name)
            and child.func.id == "setattr"
            and len(child.args) > 1
            and isinstance(child.args[1], ast.Constant)
            and child.args[1].value == "service"
        ):
            yield child.lineno, "service by setattr"
        yield from _service_assignments(child, function)


def _assigned(target: ast.expr) -> list[ast.expr]:
    """The targets of an assignment, tuples and lists unpacked (`a.service, b = ...`)."""
    if isinstance(target, ast.Tuple | ast.List):
        return [leaf for element in target.elts for leaf in _assigned(element)]
    return [target]


def test_the_app_never_assigns_a_service_after_construction():
    assert_none(services_assigned(ROOT))


def test_a_service_swapped_by_assignment_is_reported(tmp_path):
    assert findings(
        services_assigned,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/app/screens/sync.py": (
                "class Sync:\n"
                "    def __init__(self, screen, service):\n"
                "        self.service = service\n"  # construction: allowed
                "        screen.service = service\n"
                "\n"
                "    def _replace_service(self, service):\n"
                "        self.screen.service = service\n"
                "        self.screen.app.service: object = service\n"
                "        self.service, other = service, None\n"
                "        setattr(self.screen, 'service', service)\n"
            ),
            "reader/service/library.py": "def leave(app, service):\n    app.service = service\n",  # not app code
        },
    ) == [
        "reader/app/screens/sync.py:4: reader.app.screens.sync assigns screen.service after construction",
        "reader/app/screens/sync.py:7: reader.app.screens.sync assigns self.screen.service after construction",
        "reader/app/screens/sync.py:8: reader.app.screens.sync assigns self.screen.app.service after construction",
        "reader/app/screens/sync.py:9: reader.app.screens.sync assigns self.service after construction",
        "reader/app/screens/sync.py:10: reader.app.screens.sync assigns service by setattr",
    ]


# --- the service and the store by composition ------------------------------------------------------

COMPOSED = ("reader.service", "reader.store")


def mixins_inherited(root: Path) -> list[str]:
    """Where a class of the service or the store inherits from a `*Methods` mixin."""
    problems = []
    for module, path in modules(root).items():
        if not _within(module, COMPOSED):
            continue
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""
                if name.endswith("Methods"):
                    where = f"{path.relative_to(root).as_posix()}:{node.lineno}"
                    problems.append(f"{where}: {module}.{node.name} inherits from the mixin {name}")
    return _by_place(problems)


def test_no_class_of_the_service_or_the_store_inherits_from_a_mixin():
    assert_none(mixins_inherited(ROOT))


def test_a_class_inheriting_from_a_mixin_is_reported(tmp_path):
    assert findings(
        mixins_inherited,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/service/library.py": (
                "from reader.service import tags\n"
                "class Service(TagsMethods, tags.NotesMethods, Base):\n    pass\n"
                "class Fine(Collaborator):\n    pass\n"
            ),
            "reader/store/store.py": "class Store(object, UserMethods):\n    pass\n",
            "reader/app/screen.py": "class Screen(ScreenMethods):\n    pass\n",  # elsewhere: not this rule's
        },
    ) == [
        "reader/service/library.py:2: reader.service.library.Service inherits from the mixin TagsMethods",
        "reader/service/library.py:2: reader.service.library.Service inherits from the mixin NotesMethods",
        "reader/store/store.py:1: reader.store.store.Store inherits from the mixin UserMethods",
    ]


# --- one meaning per word: "library" ----------------------------------------------------------------


def libraries_in_core(root: Path) -> list[str]:
    """A module or class under reader/core/ named for "library": the papers a screen or command
    works on are the catalog (core/catalog.py); "library" is the library service and library.json."""
    problems = []
    for module, path in modules(root).items():
        if not _within(module, ("reader.core",)):
            continue
        relative = path.relative_to(root).as_posix()
        if "library" in module.rsplit(".", 1)[-1].lower():
            problems.append(f"{relative}:1: module {module} is named library (the papers worked on are the catalog)")
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef) and "library" in node.name.lower():
                problems.append(
                    f"{relative}:{node.lineno}: class {module}.{node.name} is named library (the papers worked on are the catalog)"
                )
    return _by_place(problems)


def test_nothing_in_core_is_named_library():
    assert_none(libraries_in_core(ROOT))


def test_a_library_module_or_class_in_core_is_reported(tmp_path):
    assert findings(
        libraries_in_core,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/core/__init__.py": "",
            "reader/core/library.py": "class Library:\n    pass\n",
            "reader/core/catalog.py": "class Catalog:\n    pass\n\n\nclass UserLibrary(Catalog):\n    pass\n",
            "reader/service/library.py": "class LibraryService:\n    pass\n",  # the library service: its word
            "reader/store/library_state.py": "class LibraryState:\n    pass\n",  # library.json's owner
        },
    ) == [
        "reader/core/catalog.py:5: class reader.core.catalog.UserLibrary is named library (the papers worked on are the catalog)",
        "reader/core/library.py:1: module reader.core.library is named library (the papers worked on are the catalog)",
        "reader/core/library.py:1: class reader.core.library.Library is named library (the papers worked on are the catalog)",
    ]


# --- no test module imports another ---------------------------------------------------------------


def imports_of_test_modules(root: Path) -> list[str]:
    """Every import, anywhere under tests/, of a test module (a tests/**/test_*.py file)."""

    def test_module(dotted: str) -> bool:
        path = root.joinpath(*dotted.split(".")).with_suffix(".py")
        return dotted.startswith("tests.") and path.name.startswith("test_") and path.is_file()

    problems = []
    for path in sorted((root / "tests").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        importer = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node, _ in _import_statements(parsed(path), type_checking=False):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            else:
                module = _absolute(node, importer, is_package=parts[-1] == "__init__")
                named = [module, *(f"{module}.{alias.name}" for alias in node.names)]
            for target in filter(test_module, named):
                problems.append(f"{path.relative_to(root).as_posix()}:{node.lineno}: {importer} imports the test module {target}")
    return problems


def test_no_test_module_imports_another():
    assert_none(imports_of_test_modules(ROOT))


def test_a_test_module_importing_another_is_reported(tmp_path):
    assert findings(
        imports_of_test_modules,
        tmp_path,
        {
            "tests/__init__.py": "",
            "tests/conftest.py": "from tests.test_app import store\n",
            "tests/test_app.py": "from tests.helpers.app import make_app\nfrom tests.helpers import test_data\n",
            "tests/test_keys.py": "def test_keys():\n    from tests.test_app import make_app\n",
            "tests/test_list.py": "import tests.test_keys\nfrom . import test_app\nfrom .test_keys import test_keys\n",
            "tests/helpers/__init__.py": "",
            "tests/helpers/app.py": "def make_app(): ...\n",
            "tests/helpers/test_data.py": "",  # named like a test module: importing it counts
        },
    ) == [
        "tests/conftest.py:1: tests.conftest imports the test module tests.test_app",
        "tests/test_app.py:2: tests.test_app imports the test module tests.helpers.test_data",
        "tests/test_keys.py:2: tests.test_keys imports the test module tests.test_app",
        "tests/test_list.py:1: tests.test_list imports the test module tests.test_keys",
        "tests/test_list.py:2: tests.test_list imports the test module tests.test_app",
        "tests/test_list.py:3: tests.test_list imports the test module tests.test_keys",
    ]


# --- no module over MAX_LINES lines ---------------------------------------------------------------

MAX_LINES = 450
# Modules over the bound today, each with why it may be: emptied as they are split.
LONG_MODULES: dict[str, str] = {}


def long_modules(root: Path, allowed: dict[str, str]) -> list[str]:
    """Each module under reader/ over MAX_LINES lines that `allowed` does not name, and each name
    of `allowed` that is no longer over (so the list only shrinks)."""
    problems = []
    for path in sorted((root / "reader").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MAX_LINES and relative not in allowed:
            problems.append(f"{relative}: {count} lines, over {MAX_LINES}: split it by meaning")
        elif count <= MAX_LINES and relative in allowed:
            problems.append(f"{relative}: {count} lines, no longer over {MAX_LINES}: take it off the list")
    problems += [
        f"{relative}: listed as over {MAX_LINES} lines but not found" for relative in sorted(allowed) if not (root / relative).is_file()
    ]
    return problems


def test_no_module_is_over_the_line_bound():
    assert_none(long_modules(ROOT, LONG_MODULES))


def test_a_module_over_the_line_bound_is_reported(tmp_path):
    long = "x = 1\n" * (MAX_LINES + 1)
    allowed = {"reader/app/screens/main.py": "being split", "reader/store/store.py": "being split", "reader/gone.py": "being split"}
    assert findings(
        long_modules,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/core/latex.py": long,
            "reader/core/bibtex.py": "x = 1\n" * MAX_LINES,  # at the bound: fine
            "reader/app/screens/main.py": long,  # listed: allowed
            "reader/store/store.py": "x = 1\n" * 10,  # listed, but split since
            "benchmarks/run.py": long,  # not under reader/
        },
        allowed,
    ) == [
        f"reader/core/latex.py: {MAX_LINES + 1} lines, over {MAX_LINES}: split it by meaning",
        f"reader/store/store.py: 10 lines, no longer over {MAX_LINES}: take it off the list",
        f"reader/gone.py: listed as over {MAX_LINES} lines but not found",
    ]


# --- a worker's result comes back as a message ------------------------------------------------------

# The only places under reader/app/ that may call back from a thread, by module and method (a
# function nested in it counts as the method), each with why a message does not serve there.
# None today: the full text's and the page view's progress lines are messages, and the figures'
# worker takes the next image to fetch under a lock the asking side takes too.
CALLS_FROM_THREAD: dict[tuple[str, str], str] = {}


def calls_from_thread(root: Path, allowed: dict[tuple[str, str], str] = CALLS_FROM_THREAD) -> list[str]:
    """Where app code calls back from a thread (`call_from_thread`, called or handed on) outside
    the `allowed` methods: a worker posts its result as a message its screen or widget handles."""
    problems = []
    for module, path in modules(root).items():
        if not _within(module, ("reader.app",)):
            continue
        for line, method in _thread_calls(parsed(path)):
            if (module, method) not in allowed:
                problems.append(f"{path.relative_to(root).as_posix()}:{line}: {module}.{method} calls call_from_thread")
    return _by_place(problems)


def _thread_calls(node: ast.AST, owner: str | None = None, in_function: bool = False) -> Iterator[tuple[int, str]]:
    """(line, Class.method) of every `call_from_thread` named under `node`; what a method holds
    (a nested function, a lambda) is the method's."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and not in_function:
            name = child.name if owner is None else f"{owner}.{child.name}"
            yield from _thread_calls(child, name, not isinstance(child, ast.ClassDef))
            continue
        if isinstance(child, ast.Attribute) and child.attr == "call_from_thread":
            yield child.lineno, owner or "<module>"
        yield from _thread_calls(child, owner, in_function)


def test_worker_results_come_back_as_messages():
    assert_none(calls_from_thread(ROOT))


def test_a_call_from_a_thread_outside_the_list_is_reported(tmp_path):
    allowed = {("reader.app.screens.full_text", "FullTextScreen.fetch"): "a progress line", ("reader.app.screens.sync", "Sync.gone"): "x"}
    assert findings(
        calls_from_thread,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/app/screens/sync.py": (
                "class Sync:\n"
                "    def _reload(self):\n"
                "        self.screen.app.call_from_thread(self._updated, 1)\n"
                "\n"
                "    def fetch(self):\n"
                "        def inner():\n"
                "            return self.app.call_from_thread(self.ask)\n"
                "        later = self.app.call_from_thread\n"  # handed on: counts too
                "        self.post_message(Done())\n"
                "\n"
                "\n"
                "def notice(app):\n"
                "    app.call_from_thread(app.notify, 'x')\n"
            ),
            "reader/app/screens/full_text.py": (
                "class FullTextScreen:\n    def fetch(self):\n        self.app.call_from_thread(self._say, 'Fetching…')\n"
            ),
            "reader/service/library.py": "def run(app):\n    app.call_from_thread(print)\n",  # not app code
        },
        allowed,
    ) == [
        "reader/app/screens/sync.py:3: reader.app.screens.sync.Sync._reload calls call_from_thread",
        "reader/app/screens/sync.py:7: reader.app.screens.sync.Sync.fetch calls call_from_thread",
        "reader/app/screens/sync.py:8: reader.app.screens.sync.Sync.fetch calls call_from_thread",
        "reader/app/screens/sync.py:13: reader.app.screens.sync.notice calls call_from_thread",
    ]
    assert calls_from_thread(tmp_path, {}) == [
        "reader/app/screens/full_text.py:3: reader.app.screens.full_text.FullTextScreen.fetch calls call_from_thread",
        *calls_from_thread(tmp_path, allowed),
    ]


# --- a screen's part reaches its screen through public members alone ---------------------------------


def private_host_calls(root: Path) -> list[str]:
    """Where a part of a screen (a class deriving from `ScreenPart`) reaches a private member of
    its host (`self.screen._x`, or `screen._x` where `screen` was bound to `self.screen`): what a
    part needs of its screen is public and named in its host Protocol, or comes as a message."""
    problems = []
    for module, path in modules(root).items():
        if not _within(module, ("reader.app",)):
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef) and any(_base_name(base) == "ScreenPart" for base in node.bases):
                for line, reached in _private_host_members(node):
                    problems.append(f"{path.relative_to(root).as_posix()}:{line}: {module}.{node.name} reaches the host's {reached}")
    return _by_place(problems)


def _base_name(base: ast.expr) -> str:
    """`ScreenPart` for `ScreenPart`, `ScreenPart[Host]` and `part.ScreenPart[Host]`."""
    if isinstance(base, ast.Subscript):
        base = base.value
    return base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""


def _private_host_members(part: ast.ClassDef) -> Iterator[tuple[int, str]]:
    for line, member in _host_members(part):
        if member.startswith("_") and not member.startswith("__"):
            yield line, member


def _host_members(part: ast.ClassDef) -> Iterator[tuple[int, str]]:
    """Each member of its screen a part names: `self.screen.x`, or `screen.x` where `screen` was
    bound to `self.screen`."""

    def is_host(node: ast.expr, aliases: set[str]) -> bool:
        self_screen = isinstance(node, ast.Attribute) and node.attr == "screen" and isinstance(node.value, ast.Name)
        return (self_screen and node.value.id == "self") or (isinstance(node, ast.Name) and node.id in aliases)  # type: ignore[union-attr]

    for function in ast.walk(part):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        aliases: set[str] = set()  # local names bound to self.screen (`screen = self.screen`, unpacked too)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = (
                        zip(target.elts, node.value.elts)
                        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                        else [(target, node.value)]
                    )
                    aliases |= {name.id for name, value in pairs if isinstance(name, ast.Name) and is_host(value, set())}
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and is_host(node.value, aliases):
                yield node.lineno, node.attr


def test_no_part_reaches_a_private_member_of_its_screen():
    assert_none(private_host_calls(ROOT))


def test_a_part_calling_a_private_method_of_its_screen_is_reported(tmp_path):
    assert findings(
        private_host_calls,
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/app/screens/sync.py": (
                "class Sync(ScreenPart[SyncHost]):\n"
                "    def done(self):\n"
                "        self.screen._refresh_everything()\n"
                "        screen, service = self.screen, self.screen.service\n"
                "        screen._say('x')\n"
                "        self.screen.refresh_list()\n"  # public: named in the host Protocol
                "        self._finished()\n"  # the part's own
                "        self.screen.__class__\n"
                "\n"
                "\n"
                "class Other(part.ScreenPart):\n"
                "    def run(self):\n"
                "        return self.screen._worker\n"
            ),
            "reader/app/screens/main.py": "class MainScreen(Screen):\n    def x(self):\n        self.screen._own()\n",  # not a part
        },
    ) == [
        "reader/app/screens/sync.py:3: reader.app.screens.sync.Sync reaches the host's _refresh_everything",
        "reader/app/screens/sync.py:5: reader.app.screens.sync.Sync reaches the host's _say",
        "reader/app/screens/sync.py:13: reader.app.screens.sync.Other reaches the host's _worker",
    ]


# --- no part reaches a sibling part through its screen ------------------------------------------------


def sibling_parts_reached(root: Path) -> list[str]:
    """Where a part of a screen names another part on its screen (`self.screen.triage`, where the
    screen, or a part, made `self.triage = Triage(self)`): what a part did that another follows goes
    up as a message, which the screen (owning its parts) hands on."""
    trees = {
        module: (path, ast.parse(path.read_bytes(), str(path)))
        for module, path in modules(root).items()
        if _within(module, ("reader.app",))
    }
    parts = {
        node.name
        for _, tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and any(_base_name(base) == "ScreenPart" for base in node.bases)
    }
    held = {  # the attribute names parts are held under
        target.attr
        for _, tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _base_name(node.value.func) in parts
        for target in node.targets
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }
    problems = []
    for module, (path, tree) in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in parts:
                for line, reached in _host_members(node):
                    if reached in held:
                        problems.append(
                            f"{path.relative_to(root).as_posix()}:{line}: {module}.{node.name} reaches the screen's part {reached}"
                        )
    return _by_place(problems)


def test_no_part_reaches_a_sibling_part_through_its_screen():
    problems = sibling_parts_reached(ROOT)
    assert not problems, "\n".join(problems)


def test_a_part_calling_a_sibling_part_through_its_screen_is_reported(tmp_path):
    root = _tree(
        tmp_path,
        {
            "reader/__init__.py": "",
            "reader/app/screens/main.py": (
                "class MainScreen(Screen):\n"
                "    def __init__(self):\n"
                "        self.triage = Triage(self)\n"
                "        self.sync = sync.Sync(self)\n"
                "        self.loaded = False\n"
                "\n"
                "    def x(self):\n"
                "        self.triage.read()\n"  # the screen holds its parts: it dispatches
            ),
            "reader/app/screens/sync.py": (
                "class Sync(ScreenPart[SyncHost]):\n"
                "    def done(self):\n"
                "        self.screen.triage.read()\n"
                "        screen = self.screen\n"
                "        if screen.loaded:\n"  # the screen's state: fine
                "            screen.sync.start([])\n"  # itself, through the screen: reported too
                "        self.screen.post_message(TriageStale())\n"
            ),
            "reader/app/screens/triage.py": (
                "class Triage(ScreenPart[TriageHost]):\n"
                "    def __init__(self, screen):\n"
                "        self.words = Words(screen)\n"  # not a part: not a name to keep off
                "\n"
                "    def ranked(self):\n"
                "        return self.screen.words, self.screen.order\n"
            ),
        },
    )
    assert sibling_parts_reached(root) == [
        "reader/app/screens/sync.py:3: reader.app.screens.sync.Sync reaches the screen's part triage",
        "reader/app/screens/sync.py:6: reader.app.screens.sync.Sync reaches the screen's part sync",
    ]
