"""Watch the workspace for changes made outside the editor.

A C file changed on disk (git checkout, generated code) invalidates its
results; a change of compile_commands.json or .supercoder.toml reloads flags
and settings. watchdog's observer runs in its own thread; events are handed
to the server's event loop with call_soon_threadsafe.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

CONFIG_FILES = ("compile_commands.json", ".supercoder.toml")
SOURCE_SUFFIXES = (".c", ".h")


class _Handler(FileSystemEventHandler):
    def __init__(
        self, loop: asyncio.AbstractEventLoop, on_source: Callable[[Path], object], on_config: Callable[[Path], object]
    ):
        self.loop, self.on_source, self.on_config = loop, on_source, on_config

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type not in ("modified", "created", "moved", "deleted"):
            return
        for p in filter(None, (getattr(event, "src_path", None), getattr(event, "dest_path", None))):
            path = Path(p if isinstance(p, str) else p.decode())
            if ".supercoder-tmp" in path.name or path.name.endswith(".supercoder.s"):
                continue
            if path.name in CONFIG_FILES:
                self.loop.call_soon_threadsafe(self.on_config, path)
            elif path.suffix in SOURCE_SUFFIXES:
                self.loop.call_soon_threadsafe(self.on_source, path)


class Watcher:
    def __init__(self, root: Path, on_source: Callable[[Path], object], on_config: Callable[[Path], object]):
        self.root = root
        self.observer = Observer()
        self.observer.daemon = True
        self.observer.schedule(_Handler(asyncio.get_running_loop(), on_source, on_config), str(root), recursive=True)

    def start(self) -> None:
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
