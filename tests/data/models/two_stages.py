"""Two stages of a small ResNet-like network (tests/data/README.md): a 3x3 convolution
of 16 channels on 28x28 and one of 32 on 14x14 (stride 2), each fused with its bias and
ReLU, so that the model's two tasks have the same blocks on other shapes (relatives:
hotdb/capture/tune/siblings.py). `first_stage` is the first convolution alone: the same
workload, for a tune whose records another model's tune starts from."""

from tvm.relax.frontend import nn


class Stage(nn.Module):
    def __init__(self, channels: int, out_channels: int, stride: int):
        self.conv = nn.Conv2D(channels, out_channels, 3, stride=stride, padding=1, bias=True)

    def forward(self, x):
        return nn.relu(self.conv(x))


class TwoStages(nn.Module):
    def __init__(self):
        self.first, self.second = Stage(16, 16, 1), Stage(16, 32, 2)

    def forward(self, x):
        return self.second(self.first(x))


INPUT = {"forward": {"x": nn.spec.Tensor((1, 16, 28, 28), "float32")}}


def two_stages():
    return TwoStages().export_tvm(INPUT)


def first_stage():
    return Stage(16, 16, 1).export_tvm(INPUT)
