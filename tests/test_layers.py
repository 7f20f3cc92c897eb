"""The floors of `python/bb7`, read from the code: every `import` of every module (at module level
and inside functions), so a lazy import that breaks a layer is caught as well as a plain one.

- `provider/` (talking to a server) sits below the edit formats, the state and everything that
  builds or sends a chat's request;
- `refusal.py` is the floor under every layer: it imports nothing of bb7;
- no two packages import each other, however far round (`bb7/__init__.py`'s lazy door to the
  host is the package itself, not one of its rooms, and is left out);
- `llm/`, which meant both the client and prompt assembly, is gone;
- the host starts without its lazy route modules (`bb7.host.handlers`), and so without the
  provider client, prompt assembly and the edit formats.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

BB7 = Path(__file__).resolve().parents[1] / "python" / "bb7"


def module_name(path: Path) -> str:
    parts = path.relative_to(BB7.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    base = BB7.parent.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


@functools.cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(BB7.rglob("*.py"))}


def at_import(tree: ast.Module) -> Iterator[ast.AST]:
    """The statements that run when the module is imported: not those inside functions, nor
    those under `if TYPE_CHECKING:`."""
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo.extend(getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            todo.extend(node.body)


@functools.cache
def imports(name: str, lazy: bool = True) -> frozenset[str]:
    """The bb7 modules that `name` imports anywhere in its code (`lazy=False`: only when it is
    imported); `from a import b` counts as `a.b` when `b` is a module, else as `a`."""
    path = modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree) if lazy else at_import(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if is_module(target) else base)
    return frozenset(m for m in found if m == "bb7" or m.startswith("bb7."))


def loaded(name: str) -> set[str]:
    """The bb7 modules that importing `name` loads: what it imports when imported, with their
    packages, and so on."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        at = todo.pop()
        parts = at.split(".")
        for module in [".".join(parts[:n]) for n in range(1, len(parts) + 1)]:
            if module not in seen and module in modules():
                seen.add(module)
                todo.extend(imports(module, lazy=False))
    return seen


def room(name: str) -> str:
    """The package a module belongs to: `bb7.state` for `bb7.state.store`; a top-level module
    (`bb7.refusal`) is its own."""
    return ".".join(name.split(".")[:2])


def package_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name in modules():
        if name == "bb7":
            continue
        for target in imports(name):
            if target != "bb7" and room(target) != room(name):
                edges.setdefault(room(name), set()).add(room(target))
    return edges


def cycles(edges: dict[str, set[str]]) -> Iterator[list[str]]:
    """One path round for each package that can reach itself."""
    for start in sorted(edges):
        trail: dict[str, str] = {}
        todo = [start]
        while todo:
            at = todo.pop()
            for nxt in sorted(edges.get(at, ())):
                if nxt == start:
                    path = [at]
                    while path[-1] != start:
                        path.append(trail[path[-1]])
                    yield [start, *reversed(path[:-1]), start]
                    todo = []
                    break
                if nxt not in trail:
                    trail[nxt] = at
                    todo.append(nxt)


def test_the_scan_reads_module_and_function_level_imports() -> None:
    # Module level, and a lazy one inside a function (`bb7.__getattr__` -> the host's rplugin).
    assert "bb7.state.store" in imports("bb7.state.outputs")
    assert "bb7.host.rplugin" in imports("bb7")
    assert "bb7.host.rplugin" not in imports("bb7", lazy=False)
    # Under TYPE_CHECKING only: the session names an agent chat's session type.
    assert "bb7.agent.session" in imports("bb7.host.session")
    assert "bb7.agent.session" not in imports("bb7.host.session", lazy=False)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}).__next__() == [
        "a",
        "b",
        "c",
        "a",
    ]


def test_llm_is_gone() -> None:
    # Its source, not its folder: a checkout made before the cut keeps llm/__pycache__.
    assert not list((BB7 / "llm").glob("**/*.py"))
    assert not any(name == "bb7.llm" or name.startswith("bb7.llm.") for name in modules())


def test_the_provider_knows_nothing_above_it() -> None:
    above = ("bb7.formats", "bb7.state", "bb7.chat", "bb7.prompt", "bb7.host")
    wrong = {
        f"{name} -> {target}"
        for name in modules()
        if room(name) == "bb7.provider"
        for target in imports(name)
        if room(target) in above
    }
    assert not wrong


def test_the_refusal_floor_imports_nothing_of_bb7() -> None:
    assert imports("bb7.refusal") == frozenset()


def test_no_package_imports_itself_round() -> None:
    assert list(cycles(package_edges())) == []


def test_the_host_starts_without_its_lazy_routes() -> None:
    started = loaded("bb7.host.__main__")
    assert "bb7.host.handlers" in started and "bb7.state.store" in started
    lazy = {"bb7.host.handlers.send", "bb7.host.handlers.model", "bb7.host.handlers.prompt"}
    heavy = {"bb7.provider.client", "bb7.prompt.assemble", "bb7.chat.send", "bb7.formats.apply"}
    assert started.isdisjoint(lazy | heavy)
    routes = (BB7 / "host" / "handlers" / "__init__.py").read_text()
    assert all(f'"{module}"' in routes for module in lazy)  # each named for `lazy()` there
