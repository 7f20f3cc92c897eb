"""bb7 as a classic remote plugin: `:UpdateRemotePlugins` finds `BB7RemotePlugin` here.

pynvim's remote-plugin host imports this file as the module `bb7`, the name of bb7's own
package. So this module becomes that package: `__path__` points at the plugin checkout's
`python/bb7`, the package's `__init__.py` runs here, and `bb7.host` & co. import from there.
(When bb7 is installed in the host's interpreter, `import bb7` finds it first and this file is
not read; the installed package offers the same class, see `bb7.__getattr__`.)
"""

import os

__path__ = [
    os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python", "bb7")
]
_INIT = os.path.join(__path__[0], "__init__.py")
with open(_INIT, encoding="utf-8") as _file:
    exec(compile(_file.read(), _INIT, "exec"))  # the package's __version__, __getattr__

from bb7.host.rplugin import BB7RemotePlugin  # noqa: E402, F401  (what pynvim looks for)
