# Golden fixture: glued values, seeding and paths that name the capturing machine.
# %% glue glue=count,ratio,table,label,nothing
import random

count = 3
ratio = 2 / 3
table = {"eager": [0.5, 0.25], "compiled": {"ms": 1.5e-3, "ok": True}}
label = "résumé · 이름"
nothing = None
print(random.random())

# %% paths
import os
import sys
import tempfile
from pathlib import Path

print(Path.cwd())
print(Path(__file__).resolve())
print(Path.home())
print(tempfile.gettempdir())
print(Path(sys.executable).parent)
print(Path(os.__file__).parent)

# %% leftover-thread
import threading
import time

threading.Thread(target=time.sleep, args=(60,), daemon=True, name="sleeper").start()
print("started")
