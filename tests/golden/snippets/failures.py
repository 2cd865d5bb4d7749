# Golden fixture: warnings and declared exceptions with their tracebacks.
# %% warns
import warnings

warnings.warn("mind the gap", UserWarning)
warnings.warn("old spelling", DeprecationWarning)


# %% declared raises="ZeroDivisionError"
def divide(a, b):
    return a / b


print("before")
divide(1, 0)

# %% chained raises="RuntimeError"
try:
    {}["missing"]
except KeyError as exc:
    raise RuntimeError("lookup failed") from exc

# %% after-the-failure
print("still runs")
