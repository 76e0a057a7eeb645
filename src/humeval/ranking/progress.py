"""Progress reports and clean interruption for the models with long fits (Crowd-BT's EM
iterations, the IRT models' Gibbs sweeps, the GRM's optimiser iterations).

One design for all of them: ``fit(data, ..., progress=None)``. ``progress(done, total)`` is called
after every iteration with ``done`` increasing, and finally once with ``done == total`` (a fit
that converges early jumps to the end), so a progress bar can be driven directly, e.g.
``model.fit(c, progress=lambda done, total: bar.update(task, completed=done, total=total))``.
``progress`` is an argument of ``fit``, not a model parameter, so ``get_params`` (and with it
cloning, pickling for worker processes and the bootstrap) never carries a callback.

A fit that ends in an exception (Ctrl-C's ``KeyboardInterrupt``, or any exception the callback
raises to cancel) leaves the model as it was constructed: every attribute that is not a
constructor parameter is removed, so no half-fitted ``scores_`` remain and the model says "not
fitted yet". Compiled loops cannot be interrupted midway, so the iterations these models report
are Python-level steps (one sweep, one EM step, one optimiser iteration); Ctrl-C takes effect at
the end of the current one. Without a callback the IRT models run their sweeps in blocks
(``irt.SWEEP_BLOCK``; the same draws), and Ctrl-C waits for the end of the block.
"""

from __future__ import annotations


class ReportsProgress:
    """Mixin for ``Ranker`` subclasses: ``fit(..., progress=None)`` and ``self._report(done, total)``."""

    def fit(self, data, *args, progress=None, **kwargs):
        self._progress = progress
        try:
            return super().fit(data, *args, **kwargs)
        except BaseException:
            self._forget()
            raise
        finally:
            self.__dict__.pop("_progress", None)

    def _report(self, done: int, total: int) -> None:
        """Tell the caller's ``progress`` callback (if any) that ``done`` of ``total`` steps are done."""
        callback = getattr(self, "_progress", None)
        if callback is not None:
            callback(int(done), int(total))

    def _forget(self) -> None:
        """Back to the constructed state: drop everything but the constructor parameters."""
        keep = set(self._param_names())
        for name in [n for n in vars(self) if n not in keep]:
            delattr(self, name)
