#include <gtest/gtest.h>

#include "analyzers/trace/kernel_names.hpp"

using namespace perftriage::analyzers::trace;

TEST(KernelNames, Classes) {
  EXPECT_EQ(classify_kernel_name("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64> >(Flash_fwd_params)")
                .group,
            "flash_fwd");
  EXPECT_EQ(classify_kernel_name("void pytorch_flash::flash_fwd_splitkv_kernel<T>(P)").group, "flash_fwd_splitkv");
  EXPECT_EQ(
      classify_kernel_name("fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<>::Params)")
          .cls,
      KernelClass::attention);
  EXPECT_EQ(classify_kernel_name("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3").group,
            "cudnn_sdpa");
  EXPECT_EQ(classify_kernel_name("micro_sdpa").group, "micro_sdpa");
  EXPECT_TRUE(classify_kernel_name("ref_sdpa").reference_sdpa);
  EXPECT_EQ(classify_kernel_name("attn_fwd").group, "attn_fwd");
  EXPECT_EQ(classify_kernel_name("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN").cls, KernelClass::gemm);
  EXPECT_EQ(classify_kernel_name("Cijk_Alik_Bljk_SB_MT64x16x32_MI16x16x1").cls, KernelClass::gemm);
  EXPECT_EQ(classify_kernel_name("gemm_kernel").cls, KernelClass::gemm);
  EXPECT_EQ(classify_kernel_name("ampere_sgemm_32x32_sliced1x4_tn").cls, KernelClass::gemm);
  EXPECT_EQ(classify_kernel_name("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32").cls, KernelClass::conv);
  EXPECT_EQ(classify_kernel_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)").cls,
            KernelClass::collective);
  EXPECT_EQ(classify_kernel_name("reusable_softmax_fwd_generic").group, "softmax");
  EXPECT_EQ(classify_kernel_name(
                "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false, false>(float*)")
                .group,
            "softmax");
  EXPECT_TRUE(classify_kernel_name(
                  "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, true, false>(float*)")
                  .log_softmax);
  EXPECT_TRUE(classify_kernel_name("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, "
                                   "float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*)")
                  .log_softmax);
  EXPECT_EQ(classify_kernel_name("Memcpy DtoD (Device -> Device)").cls, KernelClass::memcpy);
  EXPECT_EQ(classify_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                                 "at::detail::Array<char*, 1> >(int)")
                .short_name,
            "vectorized_elementwise_kernel");
}

TEST(KernelNames, Triton) {
  const auto k = classify_kernel_name("triton_per_fused__safe_softmax_add_2");
  EXPECT_EQ(k.cls, KernelClass::triton);
  EXPECT_EQ(k.triton_kind, "per");
  EXPECT_EQ(k.group, "triton safe_softmax_add");
  EXPECT_TRUE(k.safe_softmax);
  EXPECT_EQ(classify_kernel_name("triton_poi_fused_add_cos_sin_0").group, "triton add_cos_sin");
  EXPECT_EQ(classify_kernel_name("triton_tem_fused_mm_0").triton_kind, "tem");
}

TEST(KernelNames, AttentionOps) {
  EXPECT_EQ(classify_attention_op("aten::_scaled_dot_product_attention_math"), AttentionOp::math);
  EXPECT_EQ(classify_attention_op("aten::_scaled_dot_product_fused_attention_overrideable"), AttentionOp::fused);
  EXPECT_EQ(classify_attention_op("aten::_scaled_dot_product_flash_attention_for_cpu"), AttentionOp::fused);
  EXPECT_EQ(classify_attention_op("aten::_safe_softmax"), AttentionOp::safe_softmax);
  EXPECT_EQ(classify_attention_op("aten::log_softmax"), AttentionOp::none);
}
