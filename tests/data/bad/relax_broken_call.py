@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):
        lv: R.Tensor((1, 3), dtype="float32") = R.nn.relu(x
