# Golden fixture: a matplotlib figure, stored as SVG with a text description.
# %% chart
import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot as plt

fig, ax = plt.subplots(figsize=(3, 2))
ax.bar(["eager", "compiled"], [1.0, 0.5])
ax.set_title("time per call")
ax.set_ylabel("ms")
plt.show()
