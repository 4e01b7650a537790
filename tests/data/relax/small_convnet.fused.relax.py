# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_conv2d1_add_relu(relu: T.Buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)), "float32"), conv2_weight: T.Buffer((T.int64(16), T.int64(16), T.int64(3), T.int64(3)), "float32"), lv3: T.Buffer((T.int64(1), T.int64(16), T.int64(1), T.int64(1)), "float32"), compute_intermediate: T.Buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(10), T.int64(10)))
        conv2d_nchw_intermediate = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)))
        T_add_intermediate = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(16), T.int64(10), T.int64(10)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(relu[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(9) and T.int64(1) <= v_i3 and v_i3 < T.int64(9), relu[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(16), T.int64(8), T.int64(8), T.int64(16), T.int64(3), T.int64(3)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], conv2_weight[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * conv2_weight[v_ff, v_rc, v_ry, v_rx]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(8), T.int64(8)):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(conv2d_nchw_intermediate[v_ax0, v_ax1, v_ax2, v_ax3], lv3[v_ax0, v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_add_intermediate[v_ax0, v_ax1, v_ax2, v_ax3])
                T_add_intermediate[v_ax0, v_ax1, v_ax2, v_ax3] = conv2d_nchw_intermediate[v_ax0, v_ax1, v_ax2, v_ax3] + lv3[v_ax0, v_ax1, T.int64(0), T.int64(0)]
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(16), T.int64(8), T.int64(8)):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(T_add_intermediate[v_i0, v_i1, v_i2, v_i3])
                T.writes(compute_intermediate[v_i0, v_i1, v_i2, v_i3])
                compute_intermediate[v_i0, v_i1, v_i2, v_i3] = T.max(T_add_intermediate[v_i0, v_i1, v_i2, v_i3], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def fused_conv2d_add_relu(x: T.Buffer((T.int64(1), T.int64(3), T.int64(8), T.int64(8)), "float32"), conv1_weight: T.Buffer((T.int64(16), T.int64(3), T.int64(3), T.int64(3)), "float32"), lv1: T.Buffer((T.int64(1), T.int64(16), T.int64(1), T.int64(1)), "float32"), compute_intermediate: T.Buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(10), T.int64(10)))
        conv2d_nchw_intermediate = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)))
        T_add_intermediate = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(10), T.int64(10)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(9) and T.int64(1) <= v_i3 and v_i3 < T.int64(9), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(16), T.int64(8), T.int64(8), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], conv1_weight[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw_intermediate[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * conv1_weight[v_ff, v_rc, v_ry, v_rx]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(8), T.int64(8)):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(conv2d_nchw_intermediate[v_ax0, v_ax1, v_ax2, v_ax3], lv1[v_ax0, v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_add_intermediate[v_ax0, v_ax1, v_ax2, v_ax3])
                T_add_intermediate[v_ax0, v_ax1, v_ax2, v_ax3] = conv2d_nchw_intermediate[v_ax0, v_ax1, v_ax2, v_ax3] + lv1[v_ax0, v_ax1, T.int64(0), T.int64(0)]
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(16), T.int64(8), T.int64(8)):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(T_add_intermediate[v_i0, v_i1, v_i2, v_i3])
                T.writes(compute_intermediate[v_i0, v_i1, v_i2, v_i3])
                compute_intermediate[v_i0, v_i1, v_i2, v_i3] = T.max(T_add_intermediate[v_i0, v_i1, v_i2, v_i3], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul_add1(reshape: T.Buffer((T.int64(1), T.int64(1024)), "float32"), permute_dims: T.Buffer((T.int64(1024), T.int64(10)), "float32"), fc_bias: T.Buffer((T.int64(10),), "float32"), T_add_intermediate: T.Buffer((T.int64(1), T.int64(10)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((T.int64(1), T.int64(10)))
        for i0, i1, k in T.grid(T.int64(1), T.int64(10), T.int64(1024)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(reshape[v_i0, v_k], permute_dims[v_k, v_i1])
                T.writes(matmul_intermediate[v_i0, v_i1])
                with T.init():
                    matmul_intermediate[v_i0, v_i1] = T.float32(0.0)
                matmul_intermediate[v_i0, v_i1] = matmul_intermediate[v_i0, v_i1] + reshape[v_i0, v_k] * permute_dims[v_k, v_i1]
        for ax0, ax1 in T.grid(T.int64(1), T.int64(10)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate[v_ax0, v_ax1], fc_bias[v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = matmul_intermediate[v_ax0, v_ax1] + fc_bias[v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def reshape(conv1_bias: T.Buffer((T.int64(16),), "float32"), T_reshape: T.Buffer((T.int64(1), T.int64(16), T.int64(1), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(1), T.int64(1)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(conv1_bias[(v_ax1 + v_ax2 + v_ax3) % T.int64(16)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape[v_ax0, v_ax1, v_ax2, v_ax3] = conv1_bias[(v_ax1 + v_ax2 + v_ax3) % T.int64(16)]

    @T.prim_func(private=True, s_tir=True)
    def reshape1(relu1: T.Buffer((T.int64(1), T.int64(16), T.int64(8), T.int64(8)), "float32"), T_reshape: T.Buffer((T.int64(1), T.int64(1024)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(1), T.int64(1024)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(relu1[T.int64(0), v_ax1 % T.int64(1024) // T.int64(64), v_ax1 % T.int64(64) // T.int64(8), v_ax1 % T.int64(8)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = relu1[T.int64(0), v_ax1 % T.int64(1024) // T.int64(64), v_ax1 % T.int64(64) // T.int64(8), v_ax1 % T.int64(8)]

    @T.prim_func(private=True, s_tir=True)
    def transpose(fc_weight: T.Buffer((T.int64(10), T.int64(1024)), "float32"), T_transpose: T.Buffer((T.int64(1024), T.int64(10)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(1024), T.int64(10)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(fc_weight[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = fc_weight[v_ax1, v_ax0]

    @R.function
    def forward(x: R.Tensor((1, 3, 8, 8), dtype="float32"), conv1_weight: R.Tensor((16, 3, 3, 3), dtype="float32"), conv1_bias: R.Tensor((16,), dtype="float32"), conv2_weight: R.Tensor((16, 16, 3, 3), dtype="float32"), conv2_bias: R.Tensor((16,), dtype="float32"), fc_weight: R.Tensor((10, 1024), dtype="float32"), fc_bias: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        with R.dataflow():
            lv1 = R.call_tir(cls.reshape, (conv1_bias,), out_ty=R.Tensor((1, 16, 1, 1), dtype="float32"))
            lv = R.call_tir(cls.fused_conv2d_add_relu, (x, conv1_weight, lv1), out_ty=R.Tensor((1, 16, 8, 8), dtype="float32"))
            lv3 = R.call_tir(cls.reshape, (conv2_bias,), out_ty=R.Tensor((1, 16, 1, 1), dtype="float32"))
            lv1_1 = R.call_tir(cls.fused_conv2d1_add_relu, (lv, conv2_weight, lv3), out_ty=R.Tensor((1, 16, 8, 8), dtype="float32"))
            reshape = R.call_tir(cls.reshape1, (lv1_1,), out_ty=R.Tensor((1, 1024), dtype="float32"))
            permute_dims = R.call_tir(cls.transpose, (fc_weight,), out_ty=R.Tensor((1024, 10), dtype="float32"))
            gv = R.call_tir(cls.fused_matmul_add1, (reshape, permute_dims, fc_bias), out_ty=R.Tensor((1, 10), dtype="float32"))
            R.output(gv)
        return gv