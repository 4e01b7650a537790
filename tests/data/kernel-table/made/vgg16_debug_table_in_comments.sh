#!/bin/sh
# Profile VGG-16 with the debug executor; output kept below.
set -e

python3 run_vgg16.py --debug
# >>>
# Loading model...
#
# Node Name                                                    Ops                                                         Time(us)    Time(%)  Shape                 Inputs  Outputs
# ---------                                                    ---                                                         --------    -------  -----                 ------  -------
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_11  tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1  81132.926   16.167   (1, 8, 28, 28, 64)    3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1  79860.204   15.914   (1, 8, 28, 28, 64)    3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_5   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_5  51061.017   10.175   (1, 2, 112, 112, 64)  3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_7   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_7  48186.036   9.602    (1, 2, 224, 224, 32)  3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_31  tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_3  42792.374   8.527    (1, 8, 56, 56, 32)    3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_3   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_3  42107.32    8.391    (1, 8, 56, 56, 32)    3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_6   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_6  25609.635   5.103    (1, 2, 112, 112, 64)  3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_4   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_4  25481.31    5.078    (1, 8, 56, 56, 32)    3       1
# tvmgen_default_fused_nn_dense_add_nn_relu_1                  tvmgen_default_fused_nn_dense_add_nn_relu_1                 24548.825   4.892    (1, 4096)             3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_2   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_2  21283.008   4.241    (1, 8, 28, 28, 64)    3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu2    tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu    13893.046   2.768    (1, 32, 14, 14, 16)   3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu     tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu    13751.165   2.74     (1, 32, 14, 14, 16)   3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu1    tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu    13495.805   2.689    (1, 32, 14, 14, 16)   3       1
# tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_8   tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_8  7182.583    1.431    (1, 2, 224, 224, 32)  3       1
# tvmgen_default_fused_nn_dense_add_nn_relu                    tvmgen_default_fused_nn_dense_add_nn_relu                   3281.801    0.654    (1, 4096)             3       1
# tvmgen_default_fused_nn_max_pool2d_4                         tvmgen_default_fused_nn_max_pool2d_4                        2564.596    0.511    (1, 2, 112, 112, 32)  1       1
# tvmgen_default_fused_layout_transform_1                      tvmgen_default_fused_layout_transform_1                     2135.638    0.426    (1, 8, 112, 112, 16)  1       1
# tvmgen_default_fused_nn_max_pool2d_3                         tvmgen_default_fused_nn_max_pool2d_3                        1272.382    0.254    (1, 2, 56, 56, 64)    1       1
# tvmgen_default_fused_nn_dense_add                            tvmgen_default_fused_nn_dense_add                           747.567     0.149    (1, 1000)             3       1
# tvmgen_default_fused_nn_max_pool2d_2                         tvmgen_default_fused_nn_max_pool2d_2                        648.158     0.129    (1, 8, 28, 28, 32)    1       1
# tvmgen_default_fused_nn_max_pool2d_1                         tvmgen_default_fused_nn_max_pool2d_1                        322.379     0.064    (1, 8, 14, 14, 64)    1       1
# tvmgen_default_fused_layout_transform_2                      tvmgen_default_fused_layout_transform_2                     206.566     0.041    (1, 1, 224, 224, 3)   1       1
# tvmgen_default_fused_layout_transform                        tvmgen_default_fused_layout_transform                       140.258     0.028    (1, 32, 14, 14, 16)   1       1
# tvmgen_default_fused_nn_max_pool2d                           tvmgen_default_fused_nn_max_pool2d                          84.769      0.017    (1, 32, 7, 7, 16)     1       1
# tvmgen_default_fused_layout_transform_nn_batch_flatten       tvmgen_default_fused_layout_transform_nn_batch_flatten      36.12       0.007    (1, 25088)            1       1
# tvmgen_default_fused_nn_softmax                              tvmgen_default_fused_nn_softmax                             9.449       0.002    (1, 1000)             1       1
# Total_time                                                   -                                                           501834.937  -        -                     -       -
# <<<

python3 run_vgg16.py --repeat 10
# >>>
# Execution time summary:
#  mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)
#   501.8349     501.2210     509.0113     498.9003       2.9921
# <<<

