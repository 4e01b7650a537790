# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def forward(x: R.Tensor((1, 3, 8, 8), dtype="float32"), conv1_weight: R.Tensor((16, 3, 3, 3), dtype="float32"), conv1_bias: R.Tensor((16,), dtype="float32"), conv2_weight: R.Tensor((16, 16, 3, 3), dtype="float32"), conv2_bias: R.Tensor((16,), dtype="float32"), fc_weight: R.Tensor((10, 1024), dtype="float32"), fc_bias: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.conv2d(x, conv1_weight, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(conv1_bias, R.shape([1, 16, 1, 1]))
            conv2d: R.Tensor((1, 16, 8, 8), dtype="float32") = R.add(lv, lv1)
            relu: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.relu(conv2d)
            lv2: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.conv2d(relu, conv2_weight, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv3: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(conv2_bias, R.shape([1, 16, 1, 1]))
            conv2d1: R.Tensor((1, 16, 8, 8), dtype="float32") = R.add(lv2, lv3)
            relu1: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.relu(conv2d1)
            reshape: R.Tensor((1, 1024), dtype="float32") = R.reshape(relu1, R.shape([1, 1024]))
            permute_dims: R.Tensor((1024, 10), dtype="float32") = R.permute_dims(fc_weight, axes=None)
            matmul: R.Tensor((1, 10), dtype="float32") = R.matmul(reshape, permute_dims, out_dtype=None)
            add: R.Tensor((1, 10), dtype="float32") = R.add(matmul, fc_bias)
            gv: R.Tensor((1, 10), dtype="float32") = add
            R.output(gv)
        return gv