"""Built-in models, defined with tvm.relax.frontend.nn; random weights, no downloads.

BatchNorm is folded into convolution biases, as inference builds do. Every entry
returns (nn.Module, input spec dict, description).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class ZooModel:
    name: str
    description: str
    build: Callable  # () -> (nn.Module, {"forward": {"x": spec}})


def _nn():
    from tvm import relax
    from tvm.relax.frontend import nn

    class MaxPool(nn.Module):
        def __init__(self, size, stride, padding=0):
            self.size, self.stride, self.padding = size, stride, padding

        def forward(self, x):
            return nn.op.wrap_nested(relax.op.nn.max_pool2d(x._expr, self.size, self.stride, self.padding), "max_pool2d")

    class GlobalAvgPool(nn.Module):
        def forward(self, x):
            return nn.op.wrap_nested(relax.op.nn.adaptive_avg_pool2d(x._expr, (1, 1)), "global_avg_pool2d")

    return nn, MaxPool, GlobalAvgPool


def _image(nn, batch=1, size=224):
    return {"forward": {"x": nn.spec.Tensor((batch, 3, size, size), "float32")}}


def mlp():
    nn, _, _ = _nn()

    class MLP(nn.Module):
        def __init__(self):
            self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 256), nn.Linear(256, 10)

        def forward(self, x):
            return self.fc3(nn.relu(self.fc2(nn.relu(self.fc1(x)))))

    return MLP(), {"forward": {"x": nn.spec.Tensor((1, 784), "float32")}}


def vgg16():
    nn, MaxPool, _ = _nn()
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]

    class VGG16(nn.Module):
        def __init__(self):
            layers, cin = [], 3
            for c in cfg:
                if c == "M":
                    layers.append(MaxPool(2, 2))
                else:
                    layers += [nn.Conv2D(cin, c, 3, padding=1), nn.ReLU()]
                    cin = c
            self.features = nn.ModuleList(layers)
            self.fc1, self.fc2, self.fc3 = nn.Linear(25088, 4096), nn.Linear(4096, 4096), nn.Linear(4096, 1000)

        def forward(self, x):
            for layer in self.features:
                x = layer(x)
            x = x.reshape(1, 25088)
            return self.fc3(nn.relu(self.fc2(nn.relu(self.fc1(x)))))

    return VGG16(), _image(nn)


def _resnet(blocks, bottleneck):
    nn, MaxPool, GlobalAvgPool = _nn()

    class Basic(nn.Module):
        expansion = 1

        def __init__(self, cin, c, stride):
            self.conv1 = nn.Conv2D(cin, c, 3, stride, 1)
            self.conv2 = nn.Conv2D(c, c, 3, 1, 1)
            self.down = nn.Conv2D(cin, c, 1, stride) if stride != 1 or cin != c else None

        def forward(self, x):
            out = self.conv2(nn.relu(self.conv1(x)))
            return nn.relu(out + (self.down(x) if self.down is not None else x))

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, cin, c, stride):
            self.conv1 = nn.Conv2D(cin, c, 1)
            self.conv2 = nn.Conv2D(c, c, 3, stride, 1)
            self.conv3 = nn.Conv2D(c, c * 4, 1)
            self.down = nn.Conv2D(cin, c * 4, 1, stride) if stride != 1 or cin != c * 4 else None

        def forward(self, x):
            out = self.conv3(nn.relu(self.conv2(nn.relu(self.conv1(x)))))
            return nn.relu(out + (self.down(x) if self.down is not None else x))

    block = Bottleneck if bottleneck else Basic

    class ResNet(nn.Module):
        def __init__(self):
            self.stem, self.pool = nn.Conv2D(3, 64, 7, 2, 3), MaxPool(3, 2, 1)
            layers, cin = [], 64
            for i, (n, c) in enumerate(zip(blocks, (64, 128, 256, 512))):
                for j in range(n):
                    layers.append(block(cin, c, 2 if i > 0 and j == 0 else 1))
                    cin = c * block.expansion
            self.layers = nn.ModuleList(layers)
            self.gap, self.fc, self.width = GlobalAvgPool(), nn.Linear(cin, 1000), cin

        def forward(self, x):
            x = self.pool(nn.relu(self.stem(x)))
            for layer in self.layers:
                x = layer(x)
            return self.fc(self.gap(x).reshape(1, self.width))

    return ResNet(), _image(nn)


def mobilenet_v2():
    nn, _, GlobalAvgPool = _nn()
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]

    class Inverted(nn.Module):
        def __init__(self, cin, cout, stride, t):
            hidden = cin * t
            self.expand = nn.Conv2D(cin, hidden, 1) if t != 1 else None
            self.dw = nn.Conv2D(hidden, hidden, 3, stride, 1, groups=hidden)
            self.project = nn.Conv2D(hidden, cout, 1)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            out = nn.op.relu6(self.expand(x)) if self.expand is not None else x
            out = self.project(nn.op.relu6(self.dw(out)))
            return out + x if self.residual else out

    class MobileNetV2(nn.Module):
        def __init__(self):
            self.stem = nn.Conv2D(3, 32, 3, 2, 1)
            layers, cin = [], 32
            for t, c, n, s in settings:
                for i in range(n):
                    layers.append(Inverted(cin, c, s if i == 0 else 1, t))
                    cin = c
            self.layers = nn.ModuleList(layers)
            self.head, self.gap, self.fc = nn.Conv2D(320, 1280, 1), GlobalAvgPool(), nn.Linear(1280, 1000)

        def forward(self, x):
            x = nn.op.relu6(self.stem(x))
            for layer in self.layers:
                x = layer(x)
            return self.fc(self.gap(nn.op.relu6(self.head(x))).reshape(1, 1280))

    return MobileNetV2(), _image(nn)


def bert_layer():
    nn, _, _ = _nn()
    seq, hidden, heads, ffn = 128, 768, 12, 3072

    class BertLayer(nn.Module):
        def __init__(self):
            self.q, self.k, self.v = (nn.Linear(hidden, hidden) for _ in range(3))
            self.out, self.ln1 = nn.Linear(hidden, hidden), nn.LayerNorm(hidden)
            self.up, self.down, self.ln2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden), nn.LayerNorm(hidden)

        def forward(self, x):
            def split(t):
                return nn.op.permute_dims(t.reshape(1, seq, heads, hidden // heads), [0, 2, 1, 3])
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = nn.op.softmax(nn.op.matmul(q, nn.op.permute_dims(k, [0, 1, 3, 2])) * (1.0 / 8.0), axis=-1)
            context = nn.op.permute_dims(nn.op.matmul(scores, v), [0, 2, 1, 3]).reshape(1, seq, hidden)
            x = self.ln1(x + self.out(context))
            return self.ln2(x + self.down(nn.op.gelu(self.up(x))))

    return BertLayer(), {"forward": {"x": nn.spec.Tensor((1, seq, hidden), "float32")}}


ZOO = {m.name: m for m in [
    ZooModel("mlp", "MLP 784-256-256-10, batch 1", mlp),
    ZooModel("resnet18", "ResNet-18, 1x3x224x224, BN folded", lambda: _resnet((2, 2, 2, 2), False)),
    ZooModel("resnet34", "ResNet-34, 1x3x224x224, BN folded", lambda: _resnet((3, 4, 6, 3), False)),
    ZooModel("resnet50", "ResNet-50, 1x3x224x224, BN folded", lambda: _resnet((3, 4, 6, 3), True)),
    ZooModel("mobilenet_v2", "MobileNetV2, 1x3x224x224, BN folded", mobilenet_v2),
    ZooModel("vgg16", "VGG-16, 1x3x224x224", vgg16),
    ZooModel("bert_layer", "BERT-base encoder layer, sequence 128, hidden 768", bert_layer),
]}
