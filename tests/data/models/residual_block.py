"""A ResNet basic block in small (tests/data/README.md): two 3x3 convolutions of the same
shape, the first fused with its bias and ReLU, the second with its bias, the residual add
and ReLU, so that the model's two hottest tasks share their anchor block (siblings:
hotdb/capture/tune/siblings.py). `hotdb tune tests/data/models/residual_block.py:residual_block`."""

from tvm.relax.frontend import nn


class ResidualBlock(nn.Module):
    def __init__(self, channels: int = 16):
        self.conv1 = nn.Conv2D(channels, channels, 3, padding=1, bias=True)
        self.conv2 = nn.Conv2D(channels, channels, 3, padding=1, bias=True)

    def forward(self, x):
        return nn.relu(self.conv2(nn.relu(self.conv1(x))) + x)


def residual_block():
    return ResidualBlock().export_tvm({"forward": {"x": nn.spec.Tensor((1, 16, 28, 28), "float32")}})
