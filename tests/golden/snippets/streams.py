# Golden fixture: what the runner stores for streams, terminal control and caps.
# %% interleaved
import os
import subprocess
import sys

print("stdout first")
print("stderr second", file=sys.stderr)
os.write(1, b"fd 1 third\n")
subprocess.run([sys.executable, "-c", "print('a child process, fourth')"], check=True)

# %% terminal-control
import sys

for pct in (0, 50, 100):
    sys.stdout.write(f"\rprogress {pct:3d}%")
sys.stdout.write("\n")
print("\x1b[31mred\x1b[0m plain \x07bell \u202eoverride")
print("x" * 4100)

# %% over-the-cap
for i in range(2_100):
    print(f"line {i}")
