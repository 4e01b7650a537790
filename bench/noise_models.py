"""Models for bench/compare_noise.py: an MLP whose last layer holds about a quarter of the
time, and the same MLP with that layer genuinely wider, so that its kernel does more work.

    hotdb profile bench/noise_models.py:mlp

The widths keep every fused kernel's name (`fused_matmul_add_relu`, `fused_matmul1_add1`):
the last layer's shapes are its own in all three, so TVM numbers its functions alike and a
comparison by kernel pairs the changed kernel with its old self. 364 and 400 columns
instead of 320 make that kernel about 10 % and 25 % slower here (2 cores, llvm: 360 and 416
measured 1.09 and 1.31 over 30 captures each); the bench measures the true ratio of every
run and reports it.
"""

from __future__ import annotations

WIDTH = 320
WIDTH_SLOW10 = 364
WIDTH_SLOW25 = 400


def _mlp(width: int):
    from tvm.relax.frontend import nn

    class MLP(nn.Module):
        def __init__(self):
            self.fc1, self.fc2 = nn.Linear(784, 256), nn.Linear(256, width)

        def forward(self, x):
            return self.fc2(nn.relu(self.fc1(x)))

    return MLP().export_tvm({"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})


def mlp():
    return _mlp(WIDTH)


def mlp_slow10():
    return _mlp(WIDTH_SLOW10)


def mlp_slow25():
    return _mlp(WIDTH_SLOW25)
