"""The tuner's builder: MetaSchedule's LocalBuilder, its worker processes kept from batch to batch.

LocalBuilder starts a fresh pool of worker processes for every batch (its comment cites a
memory leak of reused workers), and each new worker's first build imports TVM's tensor
intrinsics (`tvm.s_tir.tensor_intrin`, for every target: CUDA's alone ~17 s). Here that
import took 23-25 s a process, so a batch of 2 ResNet-18 convolution trials took 26-34 s
to build, against 1-2 s on workers that had already imported it
(`python bench/tune_builder.py`, bench/README.md). Kept workers, 60 builds each: resident
memory stayed at 243-341 MiB, no growth; they are still recycled after MAX_USES builds.

The builds themselves are LocalBuilder's (its default_build and default_export), its
failure words too ("LocalBuilder: Timeout, killed after ...") since hotdb reads them from
MetaSchedule's logs. The import is the workers' initializer, which TVM's pool runs outside
the build's timeout, and `start()` runs it as soon as the tuner has a job, beside the
tuner's own start (loading the model, extracting its tasks, its own import); for a CPU
target it leaves the GPUs' intrinsics out (capture/tune/intrinsics.py).

For a target that is not this machine's, a cross compiler (`cc`, capture/targets.py) links
each candidate into a shared library here, as `hotdb profile` does, instead of the tar of
objects LocalBuilder exports (which the device would link with a compiler of its own:
phones have none).
"""

from __future__ import annotations

from hotdb.capture.tune.intrinsics import import_intrinsics

MAX_USES = 256  # builds a worker makes before it is replaced; no growth was seen in 60
BUILD_WORKERS = 2  # the tuner's; a batch is of 2 trials or more (capture/tune/driver.py: trials_per_round)


def kept_builder(max_workers: int, timeout_s: float, target_kind: str, cc: str | None = None):
    """A MetaSchedule builder (a PyBuilder) whose `max_workers` worker processes live as
    long as it does; each build may take `timeout_s`. Its workers import the tensor
    intrinsics `target_kind` may use (capture/tune/intrinsics.py); with `cc`, a cross
    compiler's path, each candidate is linked by it."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.builder import BuilderResult, PyBuilder
    from tvm.support.popen_pool import PopenPoolExecutor, StatusKind

    def build_one(mod, target):
        # runs in a worker, pickled by value; LocalBuilder's functions are found there by
        # name (registered, they are TVM functions, which do not pickle)
        from tvm.s_tir.meta_schedule.builder.local_builder import default_build, default_export

        built = default_build(mod, target, None)
        if cc is None:
            return default_export(built)
        import os
        import tempfile

        from tvm.support.cc import cross_compiler

        path = os.path.join(tempfile.mkdtemp(), "tvm_tmp_mod.so")
        built.export_library(path, fcompile=cross_compiler(cc))
        return path

    @derived_object
    class KeptBuilder(PyBuilder):
        def __init__(self):
            super().__init__()
            self.max_workers, self.timeout_s, self.target_kind, self.cc = max_workers, timeout_s, target_kind, cc
            self.pool = PopenPoolExecutor(max_workers=max_workers, timeout=timeout_s,
                                          initializer=import_intrinsics, initargs=(target_kind,),
                                          maximum_process_uses=MAX_USES)

        def start(self) -> None:
            """Start every worker now (each imports the intrinsics), without waiting: one
            job a worker, submitted together, so that the pool opens all its threads."""
            for _ in range(max_workers):
                self.pool.submit(int)

        def build(self, build_inputs):
            results = []
            for result in self.pool.map_with_error_catching(lambda args: build_one(*args),
                                                            [(b.mod, b.target) for b in build_inputs]):
                if result.status == StatusKind.COMPLETE:
                    results.append(BuilderResult(result.value, None))
                elif result.status == StatusKind.TIMEOUT:
                    results.append(BuilderResult(None, f"LocalBuilder: Timeout, killed after {timeout_s} seconds"))
                else:
                    results.append(BuilderResult(None, f"LocalBuilder: An exception occurred\n{result.value}"))
            return results

        def close(self) -> None:
            self.pool.shutdown(wait=False)

    return KeptBuilder()
