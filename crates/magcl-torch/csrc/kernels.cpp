// Operation-level kernels for the training steps, each a libtorch autograd function with
// its forward and backward side by side (1, 1b, 2, 2b), and an asynchronous scalar
// read-back (3). The model itself is written once, in src/nn, in terms of operations;
// these are operations it calls. Each is chosen inside its Rust wrapper (src/kernels.rs)
// by device and kind, and every one falls back to plain libtorch operators on request
// (`kernels::with_reference_ops`), which the differential tests compare against.
//
// 1. Sparse (CSR) × dense product with a precomputed transpose for the backward pass.
//    libtorch's CPU sparse-CSR matmul transposes (and re-sorts) the sparse matrix on
//    every backward call, which dominated small-graph training steps. Here the caller
//    supplies both A and Aᵀ once per batch; forward computes A·x and backward Aᵀ·g, each
//    a row loop parallelised over rows with ATen's thread pool (at::parallel_for, which
//    splits only where this file is compiled with OpenMP: build.rs; each row is computed
//    whole by one thread, so the bits do not depend on the thread count). Rectangular
//    matrices (the graph pooling matrix) work the same way.
// 1b. The same with libtorch's sparse tensors on any device (used on CUDA).
// 1c. 1 with a self term, (A + s·I)·x: a GIN aggregation A·x + (1 + ε)·x as one
//     operation instead of three (product, scale, sum) and their autograd nodes.
// 2. Training-mode batch normalisation of an N × C matrix in two passes forward and two
//    backward (libtorch's generic kernel costs ~10× more at GIN sizes, N ≈ 2–20k, C = 32).
// 3. A scalar copied back behind the work that computes it, read later without waiting
//    for work queued after it.
// 4. MKL's vendor check, answered "Intel" so that MKL runs its AVX2 kernels on AMD CPUs.
// 5. Deferred running estimates: 2 and 2b can leave batch norm's running estimates alone
//    and hand back the batch's statistics, folded in later in a fixed order, so that two
//    branches of a step (GraphCL's views) can run their forward passes at the same time.
// 6. A partner thread for one thread's backward pass: while one thread runs a backward
//    pass that nothing else shares (SimGRACE's clean branch), another thread may serve
//    it, and 2b's backward hands that thread the weight-gradient products, which nothing
//    later in the pass reads, while it goes on along the input-gradient chain. Each
//    product is computed whole, by the same call, on one thread or the other: the bits
//    do not depend on who ran it.
// 7. libtorch's CPU generator state, read and restored for training checkpoints; 7b. the
//    same for an accelerator's default generator.
// 8. One step of libtorch's Adam / AdamW on one parameter whose moments the caller keeps,
//    so that a checkpoint can save them (the optimiser of every non-CPU run).
// 9. MKL's vector-math functions resolved before anything runs them on two threads at once
//    (libtorch issue pytorch/pytorch#188792).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <functional>
#include <sched.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

// Hot loops are compiled twice, for AVX2/FMA and for baseline x86-64, chosen at run time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MAGCL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MAGCL_CLONES
#endif

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// One output row: o = Σ_k val[k] · x[col[k]] (portable form, for CPUs without AVX2/FMA;
// no AVX2 clone, since such CPUs take csr_row_avx2 below).
void csr_row_generic(int64_t begin, int64_t end, const int64_t* __restrict ci,
                     const float* __restrict vv, const float* __restrict xp,
                     float* __restrict o, int64_t d) {
  for (int64_t j = 0; j < d; ++j) o[j] = 0.0f;
  for (int64_t k = begin; k < end; ++k) {
    const float w = vv[k];
    const float* __restrict xr = xp + ci[k] * d;
    for (int64_t j = 0; j < d; ++j) o[j] += w * xr[j];
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// a + round(x·s) for eight columns: `asm` holds the rounded product, so that the
// compiler cannot fuse the multiply and the add into one rounding (1c).
__attribute__((target("avx2"), always_inline)) inline __m256 add_self(__m256 a, const float* x,
                                                                      __m256 s) {
  __m256 m = _mm256_mul_ps(_mm256_loadu_ps(x), s);
  asm("" : "+x"(m));
  return _mm256_add_ps(a, m);
}

// The same row with AVX2/FMA, 32 columns at a time held in four registers across all of
// the row's entries, so the output is written once instead of once per entry. (GCC
// compiled the portable loop above to scalar code, storing o[j] after every entry: a
// Cora hop at 512 columns took 5 ms instead of 1.) Every output element is still
// fma(val[k], x, acc) over k in order from 0, exactly as that loop's AVX2 build computed
// it (GCC contracted its multiply-add into an fma), so results are bit for bit the same.
//
// With `xs` (the row's own features; null: none) and `sp` (its weight s), s·xs is then
// added to the row, the product rounded first (1c): `asm` keeps the compiler from fusing
// that multiply and add. (s comes by pointer: a float argument passed from this file's
// baseline code cost ~100 cycles a call in SSE/AVX transitions.)
__attribute__((target("avx2,fma"))) void csr_row_avx2(int64_t begin, int64_t end,
                                                     const int64_t* __restrict ci,
                                                     const float* __restrict vv,
                                                     const float* __restrict xp,
                                                     float* __restrict o, int64_t d,
                                                     const float* __restrict xs,
                                                     const float* __restrict sp) {
  const __m256 s = _mm256_set1_ps(xs != nullptr ? *sp : 0.0f);
  int64_t j = 0;
  for (; j + 32 <= d; j += 32) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    for (int64_t k = begin; k < end; ++k) {
      const __m256 w = _mm256_set1_ps(vv[k]);
      const float* xr = xp + ci[k] * d + j;
      a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(xr), a0);
      a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(xr + 8), a1);
      a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(xr + 16), a2);
      a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(xr + 24), a3);
    }
    if (xs != nullptr) {
      a0 = add_self(a0, xs + j, s);
      a1 = add_self(a1, xs + j + 8, s);
      a2 = add_self(a2, xs + j + 16, s);
      a3 = add_self(a3, xs + j + 24, s);
    }
    _mm256_storeu_ps(o + j, a0);
    _mm256_storeu_ps(o + j + 8, a1);
    _mm256_storeu_ps(o + j + 16, a2);
    _mm256_storeu_ps(o + j + 24, a3);
  }
  for (; j + 8 <= d; j += 8) {
    __m256 a = _mm256_setzero_ps();
    for (int64_t k = begin; k < end; ++k)
      a = _mm256_fmadd_ps(_mm256_set1_ps(vv[k]), _mm256_loadu_ps(xp + ci[k] * d + j), a);
    if (xs != nullptr) a = add_self(a, xs + j, s);
    _mm256_storeu_ps(o + j, a);
  }
  for (; j < d; ++j) {
    float a = 0.0f;
    for (int64_t k = begin; k < end; ++k) a = std::fma(vv[k], xp[ci[k] * d + j], a);
    if (xs != nullptr) {
      float m = xs[j] * *sp;
      asm("" : "+x"(m));
      a = a + m;
    }
    o[j] = a;
  }
}

// A row with each product rounded before it is added, o = (…((0 + v₀x₀) + v₁x₁) + …), in
// entry order: the arithmetic of gather · weight → index_add, which a weighted sum of
// messages (AD-GCL's soft edges) computes, so that a product with such a matrix gives the
// same bits as that form. AVX2 without FMA: the compiler cannot contract mul + add.
// `xs`, `sp`: as for csr_row_avx2 (without FMA nothing can be fused).
__attribute__((target("avx2"))) void csr_row_rounded_avx2(int64_t begin, int64_t end,
                                                       const int64_t* __restrict ci,
                                                       const float* __restrict vv,
                                                       const float* __restrict xp,
                                                       float* __restrict o, int64_t d,
                                                       const float* __restrict xs,
                                                       const float* __restrict sp) {
  const __m256 s = _mm256_set1_ps(xs != nullptr ? *sp : 0.0f);
  int64_t j = 0;
  for (; j + 32 <= d; j += 32) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    for (int64_t k = begin; k < end; ++k) {
      const __m256 w = _mm256_set1_ps(vv[k]);
      const float* xr = xp + ci[k] * d + j;
      a0 = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_loadu_ps(xr), w));
      a1 = _mm256_add_ps(a1, _mm256_mul_ps(_mm256_loadu_ps(xr + 8), w));
      a2 = _mm256_add_ps(a2, _mm256_mul_ps(_mm256_loadu_ps(xr + 16), w));
      a3 = _mm256_add_ps(a3, _mm256_mul_ps(_mm256_loadu_ps(xr + 24), w));
    }
    if (xs != nullptr) {
      a0 = add_self(a0, xs + j, s);
      a1 = add_self(a1, xs + j + 8, s);
      a2 = add_self(a2, xs + j + 16, s);
      a3 = add_self(a3, xs + j + 24, s);
    }
    _mm256_storeu_ps(o + j, a0);
    _mm256_storeu_ps(o + j + 8, a1);
    _mm256_storeu_ps(o + j + 16, a2);
    _mm256_storeu_ps(o + j + 24, a3);
  }
  for (; j + 8 <= d; j += 8) {
    __m256 a = _mm256_setzero_ps();
    for (int64_t k = begin; k < end; ++k)
      a = _mm256_add_ps(a, _mm256_mul_ps(_mm256_loadu_ps(xp + ci[k] * d + j),
                                         _mm256_set1_ps(vv[k])));
    if (xs != nullptr) a = add_self(a, xs + j, s);
    _mm256_storeu_ps(o + j, a);
  }
  for (; j < d; ++j) {
    float a = 0.0f;
    for (int64_t k = begin; k < end; ++k) a = a + xp[ci[k] * d + j] * vv[k];
    if (xs != nullptr) a = a + xs[j] * *sp;
    o[j] = a;
  }
}

const bool kHasAvx2Fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
const bool kHasAvx2 = __builtin_cpu_supports("avx2");

#endif

// o ← o + s·x over one row, the product rounded before it is added: the bits of
// `A·x + x * s` as two libtorch operations (1c; portable form).
__attribute__((optimize("fp-contract=off"))) void add_scaled_row_generic(
    float* __restrict o, const float* __restrict x, const float* __restrict sp, int64_t d) {
  const float s = *sp;
  for (int64_t j = 0; j < d; ++j) o[j] = o[j] + x[j] * s;
}

// `xs`, `sp`: the row's own features and their weight (null: no self term).
inline void csr_row(int64_t begin, int64_t end, const int64_t* ci, const float* vv,
                    const float* xp, float* o, int64_t d, const float* xs, const float* sp) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (kHasAvx2Fma) {
    csr_row_avx2(begin, end, ci, vv, xp, o, d, xs, sp);
    return;
  }
#endif
  csr_row_generic(begin, end, ci, vv, xp, o, d);
  if (xs != nullptr) add_scaled_row_generic(o, xs, sp, d);
}

// The portable form of csr_row_rounded_avx2 (contraction off: a fused multiply-add would
// round once where the weighted message sum rounds twice).
__attribute__((optimize("fp-contract=off"))) void csr_row_rounded_generic(
    int64_t begin, int64_t end, const int64_t* __restrict ci, const float* __restrict vv,
    const float* __restrict xp, float* __restrict o, int64_t d) {
  for (int64_t j = 0; j < d; ++j) o[j] = 0.0f;
  for (int64_t k = begin; k < end; ++k) {
    const float w = vv[k];
    const float* __restrict xr = xp + ci[k] * d;
    for (int64_t j = 0; j < d; ++j) o[j] = o[j] + xr[j] * w;
  }
}

inline void csr_row_rounded(int64_t begin, int64_t end, const int64_t* ci, const float* vv,
                            const float* xp, float* o, int64_t d, const float* xs,
                            const float* sp) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (kHasAvx2) {
    csr_row_rounded_avx2(begin, end, ci, vv, xp, o, d, xs, sp);
    return;
  }
#endif
  csr_row_rounded_generic(begin, end, ci, vv, xp, o, d);
  if (xs != nullptr) add_scaled_row_generic(o, xs, sp, d);
}

// `rounded`: each product rounded before it is added (csr_row_rounded), else fused.
// `self_weight` (square matrices; null: none): each output row i then gets s·x_i added
// (1c), rounded as the separate operations round it.
at::Tensor csr_times_dense(const at::Tensor& rowptr, const at::Tensor& col,
                           const at::Tensor& val, const at::Tensor& x_in,
                           bool rounded = false, const float* self_weight = nullptr) {
  const at::Tensor x = x_in.contiguous();
  const int64_t n = rowptr.size(0) - 1;
  const int64_t d = x.size(1);
  at::Tensor out = at::empty({n, d}, x.options());
  const int64_t* rp = rowptr.data_ptr<int64_t>();
  const int64_t* ci = col.data_ptr<int64_t>();
  const float* vv = val.data_ptr<float>();
  const float* xp = x.data_ptr<float>();
  float* op = out.data_ptr<float>();
  const int64_t nnz = n > 0 ? rp[n] : 0;
  // About 32k multiply-adds per task.
  const int64_t grain = std::max<int64_t>(1, (32768 * n) / std::max<int64_t>(1, (nnz + n) * d));
  TORCH_CHECK(self_weight == nullptr || x.size(0) == n,
              "csr_matmul: a self term needs a square matrix, got ", n, " rows and ", x.size(0),
              " columns");
  at::parallel_for(0, n, grain, [&](int64_t begin, int64_t end) {
    const bool self = self_weight != nullptr;
    if (rounded) {
      for (int64_t i = begin; i < end; ++i)
        csr_row_rounded(rp[i], rp[i + 1], ci, vv, xp, op + i * d, d,
                        self ? xp + i * d : nullptr, self_weight);
    } else {
      for (int64_t i = begin; i < end; ++i)
        csr_row(rp[i], rp[i + 1], ci, vv, xp, op + i * d, d, self ? xp + i * d : nullptr,
                self_weight);
    }
  });
  return out;
}

struct CsrMatmul : public torch::autograd::Function<CsrMatmul> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& rowptr,
                            const at::Tensor& col, const at::Tensor& val,
                            const at::Tensor& t_rowptr, const at::Tensor& t_col,
                            const at::Tensor& t_val, bool rounded,
                            std::optional<double> self_weight) {
    TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == at::kFloat && x.dim() == 2,
                "csr_matmul: expected a 2-D float CPU tensor");
    TORCH_CHECK(x.size(0) == t_rowptr.size(0) - 1, "csr_matmul: x has ", x.size(0),
                " rows but the matrix has ", t_rowptr.size(0) - 1, " columns");
    ctx->save_for_backward({t_rowptr, t_col, t_val});
    ctx->saved_data["rounded"] = rounded;
    if (self_weight) ctx->saved_data["self_weight"] = *self_weight;
    const float s = self_weight ? static_cast<float>(*self_weight) : 0.0f;
    return csr_times_dense(rowptr, col, val, x, rounded, self_weight ? &s : nullptr);
  }

  // (A + s·I)ᵀ g = Aᵀ g + s·g, rounded as autograd's sum of the two products' gradients.
  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    const auto saved = ctx->get_saved_variables();
    const bool rounded = ctx->saved_data["rounded"].toBool();
    const bool has_self = ctx->saved_data.count("self_weight") > 0;
    const float s = has_self ? static_cast<float>(ctx->saved_data["self_weight"].toDouble()) : 0.0f;
    at::Tensor gx = csr_times_dense(saved[0], saved[1], saved[2], grad[0], rounded,
                                    has_self ? &s : nullptr);
    return {gx,          at::Tensor(), at::Tensor(), at::Tensor(),
            at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// 1b. The same idea for libtorch's own sparse tensors on any device (CUDA): A and Aᵀ are
//     both given, so the backward pass is one more sparse product instead of libtorch's
//     transpose-and-convert of A at every backward call.
struct SparseMm : public torch::autograd::Function<SparseMm> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& a,
                            const at::Tensor& at_) {
    TORCH_CHECK(x.dim() == 2 && a.dim() == 2 && at_.dim() == 2,
                "sparse_mm: expected 2-D operands");
    TORCH_CHECK(a.device() == x.device() && at_.device() == x.device(),
                "sparse_mm: operands on different devices");
    TORCH_CHECK(x.size(0) == a.size(1) && at_.size(0) == a.size(1) && at_.size(1) == a.size(0),
                "sparse_mm: x has ", x.size(0), " rows but the matrix is ", a.size(0), " × ",
                a.size(1), " (transpose ", at_.size(0), " × ", at_.size(1), ")");
    ctx->saved_data["at"] = at_;
    return at::mm(a, x);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    const at::Tensor at_ = ctx->saved_data["at"].toTensor();
    return {at::mm(at_, grad[0].contiguous()), at::Tensor(), at::Tensor()};
  }
};

// Column sums of a row-major n × c matrix (f(x) per entry), accumulated in f32 over
// blocks of rows and in f64 across blocks.
constexpr int64_t kBlock = 64;

MAGCL_CLONES
void col_sums(const float* __restrict x, const float* __restrict center, int64_t n, int64_t c,
              bool square, double* __restrict out) {
  std::vector<float> acc(c);
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    std::fill(acc.begin(), acc.end(), 0.0f);
    float* __restrict a = acc.data();
    for (int64_t i = b; i < e; ++i) {
      const float* __restrict r = x + i * c;
      if (square) {
        for (int64_t j = 0; j < c; ++j) {
          const float d = r[j] - center[j];
          a[j] += d * d;
        }
      } else {
        for (int64_t j = 0; j < c; ++j) a[j] += r[j];
      }
    }
    for (int64_t j = 0; j < c; ++j) out[j] += a[j];
  }
}

// Σ_i g_ij and Σ_i g_ij · x̂_ij with x̂ = (x − mean) · invstd.
MAGCL_CLONES
void grad_sums(const float* __restrict x, const float* __restrict g, const float* __restrict mean,
               const float* __restrict invstd, int64_t n, int64_t c, double* __restrict gsum,
               double* __restrict gxhat) {
  std::vector<float> acc1(c), acc2(c);
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    std::fill(acc1.begin(), acc1.end(), 0.0f);
    std::fill(acc2.begin(), acc2.end(), 0.0f);
    float* __restrict a1 = acc1.data();
    float* __restrict a2 = acc2.data();
    for (int64_t i = b; i < e; ++i) {
      const float* __restrict r = x + i * c;
      const float* __restrict gr = g + i * c;
      for (int64_t j = 0; j < c; ++j) {
        a1[j] += gr[j];
        a2[j] += gr[j] * ((r[j] - mean[j]) * invstd[j]);
      }
    }
    for (int64_t j = 0; j < c; ++j) {
      gsum[j] += a1[j];
      gxhat[j] += a2[j];
    }
  }
}

// y = x · scale + shift (per column).
MAGCL_CLONES
void affine(const float* __restrict x, const float* __restrict scale, const float* __restrict shift,
            int64_t n, int64_t c, float* __restrict y) {
  for (int64_t i = 0; i < n; ++i) {
    const float* __restrict r = x + i * c;
    float* __restrict o = y + i * c;
    for (int64_t j = 0; j < c; ++j) o[j] = r[j] * scale[j] + shift[j];
  }
}

// dx = k · (g − mg − x̂ · mx) with x̂ = (x − mean) · invstd (per column k, mg, mx).
MAGCL_CLONES
void bn_dx(const float* __restrict x, const float* __restrict g, const float* __restrict mean,
           const float* __restrict invstd, const float* __restrict k, const float* __restrict mg,
           const float* __restrict mx, int64_t n, int64_t c, float* __restrict dx) {
  for (int64_t i = 0; i < n; ++i) {
    const float* __restrict r = x + i * c;
    const float* __restrict gr = g + i * c;
    float* __restrict o = dx + i * c;
    for (int64_t j = 0; j < c; ++j) {
      const float xhat = (r[j] - mean[j]) * invstd[j];
      o[j] = k[j] * (gr[j] - mg[j] - xhat * mx[j]);
    }
  }
}

// Training-mode batch norm over the rows of a contiguous N × C float matrix, with
// PyTorch's semantics: biased variance for normalising, unbiased for the running
// estimate, running = (1 − momentum)·running + momentum·batch.
// Forward of training-mode batch norm: y, plus the batch mean and inverse standard
// deviation the backward pass needs; updates the running estimates in place.
struct BnForward {
  at::Tensor y, mean, invstd;
};

// running = (1 − momentum)·running + momentum·batch for one batch of n rows with channel
// means `mean` and sums of squared deviations `sq` (unbiased variance sq / (n − 1)).
void fold_running(const at::Tensor& running_mean, const at::Tensor& running_var,
                  const float* mean, const double* sq, int64_t n, double momentum) {
  at::NoGradGuard guard;
  const int64_t c = running_mean.numel();
  float* rm = running_mean.data_ptr<float>();
  float* rv = running_var.data_ptr<float>();
  for (int64_t j = 0; j < c; ++j) {
    rm[j] = static_cast<float>((1.0 - momentum) * rm[j] + momentum * mean[j]);
    rv[j] = static_cast<float>((1.0 - momentum) * rv[j] + momentum * sq[j] / (n - 1));
  }
}

// With `deferred` given (2·C + 1 doubles; null: update in place) the running estimates
// are not touched: the batch's means, sums of squared deviations and row count go there
// instead, for fold_deferred (5.) to fold in later — in the order the caller chooses,
// with the same arithmetic.
BnForward bn_forward(const at::Tensor& x_in, const at::Tensor& weight, const at::Tensor& bias,
                     const at::Tensor& running_mean, const at::Tensor& running_var,
                     double momentum, double eps, const at::Tensor* deferred) {
  TORCH_CHECK(x_in.device().is_cpu() && x_in.scalar_type() == at::kFloat && x_in.dim() == 2,
              "batch_norm_train: expected a 2-D float CPU tensor");
  const at::Tensor x = x_in.contiguous();
  const int64_t n = x.size(0), c = x.size(1);
  TORCH_CHECK(weight.numel() == c && bias.numel() == c && running_mean.numel() == c &&
                  running_var.numel() == c,
              "batch_norm_train: parameters must have ", c, " entries");
  TORCH_CHECK(n > 1, "batch norm in training mode needs more than one row, got ", n);
  const float* xp = x.data_ptr<float>();
  std::vector<double> sum(c, 0.0), sq(c, 0.0);
  col_sums(xp, nullptr, n, c, false, sum.data());
  std::vector<float> mean(c);
  for (int64_t j = 0; j < c; ++j) mean[j] = static_cast<float>(sum[j] / n);
  col_sums(xp, mean.data(), n, c, true, sq.data());
  at::Tensor mean_t = at::empty({c}, x.options());
  at::Tensor invstd_t = at::empty({c}, x.options());
  float* mp = mean_t.data_ptr<float>();
  float* ip = invstd_t.data_ptr<float>();
  for (int64_t j = 0; j < c; ++j) {
    mp[j] = mean[j];
    ip[j] = static_cast<float>(1.0 / std::sqrt(sq[j] / n + eps));
  }
  if (deferred != nullptr) {
    // the batch's statistics, for fold_running later (running estimates left alone)
    TORCH_CHECK(deferred->scalar_type() == at::kDouble && deferred->is_contiguous() &&
                    deferred->numel() == 2 * c + 1,
                "batch_norm_train: the deferred statistics need ", 2 * c + 1, " doubles");
    double* d = deferred->data_ptr<double>();
    for (int64_t j = 0; j < c; ++j) {
      d[j] = mean[j];
      d[c + j] = sq[j];
    }
    d[2 * c] = static_cast<double>(n);
  } else {
    fold_running(running_mean, running_var, mean.data(), sq.data(), n, momentum);
  }
  const float* w = weight.data_ptr<float>();
  const float* b = bias.data_ptr<float>();
  std::vector<float> scale(c), shift(c);
  for (int64_t j = 0; j < c; ++j) {
    scale[j] = ip[j] * w[j];
    shift[j] = b[j] - mp[j] * scale[j];
  }
  at::Tensor y = at::empty({n, c}, x.options());
  affine(xp, scale.data(), shift.data(), n, c, y.data_ptr<float>());
  return {y, mean_t, invstd_t};
}

// Backward of training-mode batch norm: dx, dweight, dbias.
struct BnBackward {
  at::Tensor dx, dw, db;
};

BnBackward bn_backward(const at::Tensor& x, const at::Tensor& g_in, const at::Tensor& weight,
                       const at::Tensor& mean, const at::Tensor& invstd) {
  const at::Tensor g = g_in.contiguous();
  const int64_t n = x.size(0), c = x.size(1);
  const float* xp = x.data_ptr<float>();
  const float* gp = g.data_ptr<float>();
  const float* w = weight.data_ptr<float>();
  const float* mp = mean.data_ptr<float>();
  const float* ip = invstd.data_ptr<float>();
  std::vector<double> gsum(c, 0.0), gxhat(c, 0.0);
  grad_sums(xp, gp, mp, ip, n, c, gsum.data(), gxhat.data());
  at::Tensor dw = at::empty({c}, x.options());
  at::Tensor db = at::empty({c}, x.options());
  float* dwp = dw.data_ptr<float>();
  float* dbp = db.data_ptr<float>();
  std::vector<float> k(c), mg(c), mx(c);
  for (int64_t j = 0; j < c; ++j) {
    dwp[j] = static_cast<float>(gxhat[j]);
    dbp[j] = static_cast<float>(gsum[j]);
    k[j] = w[j] * ip[j];
    mg[j] = static_cast<float>(gsum[j] / n);
    mx[j] = static_cast<float>(gxhat[j] / n);
  }
  // dx = w·invstd · (g − mean(g) − x̂ · mean(g ⊙ x̂))
  at::Tensor dx = at::empty({n, c}, x.options());
  bn_dx(xp, gp, mp, ip, k.data(), mg.data(), mx.data(), n, c, dx.data_ptr<float>());
  return {dx, dw, db};
}

// Training-mode batch norm over the rows of a contiguous N × C float matrix, with
// PyTorch's semantics: biased variance for normalising, unbiased for the running
// estimate, running = (1 − momentum)·running + momentum·batch.
struct BatchNormTrain : public torch::autograd::Function<BatchNormTrain> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x_in,
                            const at::Tensor& weight, const at::Tensor& bias,
                            const at::Tensor& running_mean, const at::Tensor& running_var,
                            double momentum, double eps, const at::Tensor* deferred) {
    const at::Tensor x = x_in.contiguous();
    BnForward f =
        bn_forward(x, weight, bias, running_mean, running_var, momentum, eps, deferred);
    ctx->save_for_backward({x, weight, f.mean, f.invstd});
    return f.y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    const auto saved = ctx->get_saved_variables();
    BnBackward b = bn_backward(saved[0], grad[0], saved[1], saved[2], saved[3]);
    return {b.dx,         b.dw,         b.db,        at::Tensor(),
            at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// v ← max(v + b, 0) for a row-major n × c matrix and a bias of c entries, in place:
// a Linear layer's bias and ReLU after its product (at::addmm would first copy the bias
// into every row, a pass over the output as long as the ReLU's; MKL adds the copied
// bias to the finished product, so the sum rounds the same way).
MAGCL_CLONES
void bias_relu_inplace(float* __restrict v, const float* __restrict b, int64_t n, int64_t c) {
  for (int64_t i = 0; i < n; ++i) {
    float* __restrict r = v + i * c;
    for (int64_t j = 0; j < c; ++j) {
      const float t = r[j] + b[j];
      r[j] = t > 0.0f ? t : 0.0f;
    }
  }
}

// g ← g where r > 0, else 0 (ReLU backward through its output r), in place; column sums
// of the result are added to `colsum` (the bias gradient of the layer before the ReLU).
MAGCL_CLONES
void relu_backward_colsum(float* __restrict g, const float* __restrict r, int64_t n, int64_t c,
                          double* __restrict colsum) {
  std::vector<float> acc(c);
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    std::fill(acc.begin(), acc.end(), 0.0f);
    float* __restrict a = acc.data();
    for (int64_t i = b; i < e; ++i) {
      float* __restrict gr = g + i * c;
      const float* __restrict rr = r + i * c;
      for (int64_t j = 0; j < c; ++j) {
        gr[j] = rr[j] > 0.0f ? gr[j] : 0.0f;
        a[j] += gr[j];
      }
    }
    for (int64_t j = 0; j < c; ++j) colsum[j] += a[j];
  }
}

at::Tensor to_float_vector(const std::vector<double>& v, const at::TensorOptions& opts) {
  at::Tensor t = at::empty({static_cast<int64_t>(v.size())}, opts);
  float* p = t.data_ptr<float>();
  for (size_t j = 0; j < v.size(); ++j) p[j] = static_cast<float>(v[j]);
  return t;
}

// 2b. One GraphCL-style GIN layer after its propagation, as one autograd node:
//     y = BN(ReLU(ReLU(x·W1ᵀ + b1)·W2ᵀ + b2)) in training mode. At GIN sizes each of the
//     eight libtorch operations (and their autograd nodes) costs more in dispatch than in
//     arithmetic; here the four matrix products go to libtorch's GEMM and everything else
//     is a loop over the rows.
//
// 2b's forward: y, and what the backward pass needs.
struct MlpBnForward {
  at::Tensor y, r1, r2, mean, invstd;
};

MlpBnForward mlp_bn_forward(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& b1,
                            const at::Tensor& w2, const at::Tensor& b2, const at::Tensor& gamma,
                            const at::Tensor& beta, const at::Tensor& running_mean,
                            const at::Tensor& running_var, double momentum, double eps,
                            const at::Tensor* deferred) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == at::kFloat && x.dim() == 2,
              "gin_mlp_bn: expected a 2-D float CPU tensor");
  TORCH_CHECK(b1.is_contiguous() && b2.is_contiguous() && b1.numel() == w1.size(0) &&
                  b2.numel() == w2.size(0),
              "gin_mlp_bn: biases must be contiguous, one entry per output");
  at::Tensor r1 = at::mm(x, w1.t());
  bias_relu_inplace(r1.data_ptr<float>(), b1.data_ptr<float>(), r1.size(0), r1.size(1));
  at::Tensor r2 = at::mm(r1, w2.t());
  bias_relu_inplace(r2.data_ptr<float>(), b2.data_ptr<float>(), r2.size(0), r2.size(1));
  BnForward f = bn_forward(r2, gamma, beta, running_mean, running_var, momentum, eps, deferred);
  return {f.y, r1, r2, f.mean, f.invstd};
}

// 6. The partner. The thread running a backward pass attaches a Partner (a thread-local
//    pointer); another thread calls serve() on it until told to stop. offload() posts a
//    task to a slot if the partner is serving, else runs it at once; Offloaded::wait()
//    takes a posted task back and runs it itself if the partner has not claimed it yet,
//    else waits for the partner to finish it. So the backward pass never waits for a
//    thread to wake up, and a partner that never comes (asleep, descheduled on a busy
//    machine) costs nothing but the check. Tasks read only tensors that nothing writes
//    until they are waited for, and write only their own result.
inline void cpu_relax() {
#if defined(__x86_64__) && defined(__GNUC__)
  _mm_pause();
#endif
}

struct Slot {
  // 0 free, 1 posted, 2 claimed by the partner, 3 done by the partner
  std::atomic<int> state{0};
  std::function<void()> task;
  std::exception_ptr error;
};

struct Partner {
  std::atomic<bool> serving{false};
  std::atomic<bool> stop{false};
  // for tests: offload() waits until the partner serves and has claimed the task
  bool strict = false;
  std::atomic<int64_t> claimed{0};
  std::array<Slot, 4> slots;
};

thread_local Partner* t_partner = nullptr;

// Spins this long (in pause instructions) with nothing to do before yielding the core
// between checks: a few microseconds at most between two tasks of one layer, while a
// backward pass's other work (the head, the loss, a sparse product) may leave the
// partner idle for longer, and then another runnable thread should get the core.
constexpr int kSpinsBeforeYield = 4096;

// One step of waiting: a pause for the first kSpinsBeforeYield steps, a yield after.
// `steps` counts them (and stops counting there, so it never overflows).
inline void wait_step(int& steps) {
  if (steps < kSpinsBeforeYield) {
    ++steps;
    cpu_relax();
  } else {
    sched_yield();
  }
}

void serve(Partner* p) {
  // tasks run libtorch operations on plain tensors: no autograd graph is recorded
  at::NoGradGuard no_grad;
  p->serving.store(true, std::memory_order_release);
  int idle = 0;
  while (!p->stop.load(std::memory_order_acquire)) {
    bool ran = false;
    for (Slot& s : p->slots) {
      int expected = 1;
      if (s.state.load(std::memory_order_relaxed) == 1 &&
          s.state.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) {
        p->claimed.fetch_add(1, std::memory_order_relaxed);
        try {
          s.task();
        } catch (...) {
          s.error = std::current_exception();
        }
        s.state.store(3, std::memory_order_release);
        ran = true;
      }
    }
    if (ran) {
      idle = 0;
    } else {
      wait_step(idle);
    }
  }
  p->serving.store(false, std::memory_order_release);
}

// A task handed to the partner (or already run, if `slot` is null).
class Offloaded {
 public:
  explicit Offloaded(Slot* slot) : slot_(slot) {}
  Offloaded(const Offloaded&) = delete;
  Offloaded& operator=(const Offloaded&) = delete;
  ~Offloaded() {
    if (slot_ != nullptr) finish(false);
  }
  // Runs the task here if the partner has not claimed it, else waits for it; rethrows
  // the task's exception.
  void wait() { finish(true); }

 private:
  void finish(bool rethrow) {
    Slot* s = slot_;
    if (s == nullptr) return;
    slot_ = nullptr;
    std::exception_ptr error;
    int expected = 1;
    if (s->state.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) {
      std::function<void()> task = std::move(s->task);
      s->task = nullptr;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
    } else {
      int steps = 0;
      while (s->state.load(std::memory_order_acquire) != 3) wait_step(steps);
      error = s->error;
      s->error = nullptr;
      s->task = nullptr;
      s->state.store(0, std::memory_order_release);
    }
    if (rethrow && error) std::rethrow_exception(error);
  }
  Slot* slot_;
};

// Hands `task` to this thread's partner if one is serving and a slot is free; else runs
// it now. Either way the returned handle's wait() must come before the task's result is
// read or its inputs are written.
Offloaded offload(std::function<void()> task) {
  Partner* p = t_partner;
  if (p != nullptr && p->strict) {
    while (!p->serving.load(std::memory_order_acquire)) cpu_relax();
  }
  if (p != nullptr && p->serving.load(std::memory_order_acquire)) {
    for (Slot& s : p->slots) {
      if (s.state.load(std::memory_order_acquire) != 0) continue;
      s.task = std::move(task);
      s.error = nullptr;
      s.state.store(1, std::memory_order_release);
      if (p->strict) {
        while (s.state.load(std::memory_order_acquire) == 1) cpu_relax();
      }
      return Offloaded(&s);
    }
  }
  task();
  return Offloaded(nullptr);
}

// 2b's gradients: with respect to its input (if `need_dx`), W1, b1, W2, b2, γ, β.
struct MlpBnGrads {
  at::Tensor dx, dw1, db1, dw2, db2, dgamma, dbeta;
};

MlpBnGrads mlp_bn_backward(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2,
                           const at::Tensor& r1, const at::Tensor& r2, const at::Tensor& gamma,
                           const at::Tensor& mean, const at::Tensor& invstd, const at::Tensor& g,
                           bool need_dx) {
  BnBackward bn = bn_backward(r2, g, gamma, mean, invstd);
  const int64_t n = r2.size(0), h2 = r2.size(1), h1 = r1.size(1);
  // through the second ReLU and Linear
  at::Tensor g2 = bn.dx;  // fresh, contiguous: masked in place
  std::vector<double> db2(h2, 0.0);
  relu_backward_colsum(g2.data_ptr<float>(), r2.data_ptr<float>(), n, h2, db2.data());
  // the weight gradients leave the chain: each may go to the partner (6.)
  at::Tensor dw2, dw1;
  Offloaded dw2_done = offload([&] { dw2 = at::mm(g2.t(), r1); });
  at::Tensor g1 = at::mm(g2, w2);
  // through the first ReLU and Linear
  std::vector<double> db1(h1, 0.0);
  relu_backward_colsum(g1.data_ptr<float>(), r1.data_ptr<float>(), n, h1, db1.data());
  Offloaded dw1_done = offload([&] { dw1 = at::mm(g1.t(), x); });
  at::Tensor dx = need_dx ? at::mm(g1, w1) : at::Tensor();
  dw2_done.wait();
  dw1_done.wait();
  const auto opts = r2.options();
  return {dx, dw1, to_float_vector(db1, opts), dw2, to_float_vector(db2, opts), bn.dw, bn.db};
}

struct GinMlpBn : public torch::autograd::Function<GinMlpBn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w1,
                            const at::Tensor& b1, const at::Tensor& w2, const at::Tensor& b2,
                            const at::Tensor& gamma, const at::Tensor& beta,
                            const at::Tensor& running_mean, const at::Tensor& running_var,
                            double momentum, double eps, const at::Tensor* deferred) {
    MlpBnForward f = mlp_bn_forward(x, w1, b1, w2, b2, gamma, beta, running_mean, running_var,
                                    momentum, eps, deferred);
    ctx->save_for_backward({x, w1, w2, f.r1, f.r2, gamma, f.mean, f.invstd});
    return f.y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    const auto s = ctx->get_saved_variables();
    MlpBnGrads g = mlp_bn_backward(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], grad[0],
                                   ctx->needs_input_grad(0));
    return {g.dx,    g.dw1,        g.db1,        g.dw2,        g.db2,        g.dgamma,
            g.dbeta, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// Copies an exception's message into `err` (at most err_len − 1 bytes, NUL-terminated).
void copy_message(const std::exception& e, char* err, size_t err_len) {
  if (err_len > 0) {
    std::strncpy(err, e.what(), err_len - 1);
    err[err_len - 1] = '\0';
  }
}

template <typename F>
at::Tensor* guarded(F f, char* err, size_t err_len) {
  try {
    return new at::Tensor(f());
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return nullptr;
  }
}

}  // namespace

extern "C" at::Tensor* magcl_batch_norm_train(const at::Tensor* x, const at::Tensor* weight,
                                              const at::Tensor* bias,
                                              const at::Tensor* running_mean,
                                              const at::Tensor* running_var, double momentum,
                                              double eps, const at::Tensor* deferred, char* err,
                                              size_t err_len) {
  return guarded(
      [&] {
        return BatchNormTrain::apply(*x, *weight, *bias, *running_mean, *running_var, momentum,
                                     eps, deferred->defined() ? deferred : nullptr);
      },
      err, err_len);
}

extern "C" at::Tensor* magcl_gin_mlp_bn(const at::Tensor* x, const at::Tensor* w1,
                                        const at::Tensor* b1, const at::Tensor* w2,
                                        const at::Tensor* b2, const at::Tensor* gamma,
                                        const at::Tensor* beta, const at::Tensor* running_mean,
                                        const at::Tensor* running_var, double momentum,
                                        double eps, const at::Tensor* deferred, char* err,
                                        size_t err_len) {
  return guarded(
      [&] {
        return GinMlpBn::apply(*x, *w1, *b1, *w2, *b2, *gamma, *beta, *running_mean,
                               *running_var, momentum, eps,
                               deferred->defined() ? deferred : nullptr);
      },
      err, err_len);
}

// 6. The partner's entry points. magcl_partner_new makes one (`strict`: post() waits
//    for the partner to claim each task, for tests that must see tasks handed over);
//    magcl_partner_attach makes it this thread's (null: none); magcl_partner_serve runs
//    the partner's loop until magcl_partner_stop; magcl_partner_claimed counts the tasks
//    the partner ran. Free only after serve has returned or was never called.
extern "C" Partner* magcl_partner_new(int strict) {
  auto* p = new Partner();
  p->strict = strict != 0;
  return p;
}

extern "C" void magcl_partner_free(Partner* p) { delete p; }

extern "C" void magcl_partner_attach(Partner* p) { t_partner = p; }

extern "C" void magcl_partner_serve(Partner* p) { serve(p); }

extern "C" void magcl_partner_stop(Partner* p) {
  p->stop.store(true, std::memory_order_release);
}

extern "C" int64_t magcl_partner_claimed(const Partner* p) {
  return p->claimed.load(std::memory_order_relaxed);
}

// 5. Folds batch statistics written by a deferred batch norm (`deferred` above: means,
//    sums of squared deviations, row count) into running estimates, with the arithmetic
//    the in-place update uses. Returns 0, or 1 with the message in `err`.
extern "C" int magcl_fold_deferred(const at::Tensor* running_mean, const at::Tensor* running_var,
                                   const at::Tensor* deferred, double momentum, char* err,
                                   size_t err_len) {
  try {
    const int64_t c = running_mean->numel();
    TORCH_CHECK(deferred->scalar_type() == at::kDouble && deferred->numel() == 2 * c + 1 &&
                    running_var->numel() == c,
                "fold_deferred: statistics of ", deferred->numel(), " doubles for ", c,
                " channels");
    const double* d = deferred->data_ptr<double>();
    std::vector<float> mean(c);
    for (int64_t j = 0; j < c; ++j) mean[j] = static_cast<float>(d[j]);
    fold_running(*running_mean, *running_var, mean.data(), d + c,
                 static_cast<int64_t>(d[2 * c]), momentum);
    return 0;
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return 1;
  }
}

// Entry points: each returns a new tensor (owned by the caller), or null with the
// message copied into `err`.
extern "C" at::Tensor* magcl_csr_matmul(const at::Tensor* x, const at::Tensor* rowptr,
                                        const at::Tensor* col, const at::Tensor* val,
                                        const at::Tensor* t_rowptr, const at::Tensor* t_col,
                                        const at::Tensor* t_val, int rounded, int has_self,
                                        double self_weight, char* err, size_t err_len) {
  return guarded(
      [&] {
        std::optional<double> s;
        if (has_self != 0) s = self_weight;
        return CsrMatmul::apply(*x, *rowptr, *col, *val, *t_rowptr, *t_col, *t_val,
                                rounded != 0, s);
      },
      err, err_len);
}

extern "C" at::Tensor* magcl_sparse_mm(const at::Tensor* x, const at::Tensor* a,
                                       const at::Tensor* at_, char* err, size_t err_len) {
  return guarded([&] { return SparseMm::apply(*x, *a, *at_); }, err, err_len);
}

// Replaces a leaf's gradient (what an optimiser step reads) with `grad`, or removes it
// when `grad` is undefined (src/methods/optim.rs clears gradients this way, as libtorch's
// optimisers do with set_to_none). Returns 0, or 1 with the message in `err`.
extern "C" int magcl_set_grad(const at::Tensor* param, const at::Tensor* grad, char* err,
                              size_t err_len) {
  try {
    TORCH_CHECK(param->requires_grad(), "set_grad: the tensor does not require a gradient");
    if (!grad->defined()) {  // no gradient: the optimiser skips the parameter
      param->mutable_grad() = at::Tensor();
      return 0;
    }
    TORCH_CHECK(param->sizes() == grad->sizes(), "set_grad: gradient of shape ",
                grad->sizes(), " for a parameter of shape ", param->sizes());
    param->mutable_grad() = grad->detach();
    return 0;
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return 1;
  }
}

// 3. Reading a scalar back without waiting for the whole stream. A synchronous read of a
//    CUDA value waits for everything queued so far, so a training loop that queues epoch
//    e + 1 before reading epoch e's loss would still stall. Here the value is copied into
//    page-locked host memory asynchronously right after its step, an event marks the copy,
//    and the later read waits for that event only. Device-generic (c10::Event): nothing
//    CUDA-specific is compiled here.
struct PendingScalar {
  at::Tensor host;
  std::optional<c10::Event> done;
};

extern "C" PendingScalar* magcl_read_later(const at::Tensor* t, char* err, size_t err_len) {
  try {
    TORCH_CHECK(t->numel() == 1, "read_later: expected one value, got ", t->numel());
    auto* p = new PendingScalar();
    const at::Tensor v = t->detach().reshape({1});
    if (v.device().is_cpu()) {
      p->host = v.clone();
    } else {
      p->host = v.to(at::kCPU, /*non_blocking=*/true);
      c10::impl::VirtualGuardImpl guard(v.device().type());
      p->done.emplace(v.device().type());
      p->done->record(guard.getStream(v.device()));
    }
    return p;
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return nullptr;
  }
}

// How many of libtorch's threads an at::parallel_for of `n` one-item tasks in this file
// ran on (each thread takes a fixed share; tests: that the kernels' loops are split as
// libtorch's own are, which needs this file compiled with OpenMP).
extern "C" int64_t magcl_parallel_for_threads(int64_t n) {
  std::vector<std::atomic<int>> used(std::max(1, at::get_num_threads()));
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    const int t = at::get_thread_num();
    if (t >= 0 && t < static_cast<int>(used.size())) used[t].store(1);
  });
  int64_t count = 0;
  for (auto& u : used) count += u.load();
  return count;
}

// Waits for the copy and returns the value (as f64); frees nothing.
extern "C" double magcl_read_value(PendingScalar* p) {
  if (p->done) p->done->synchronize();
  return p->host.to(at::kDouble).item<double>();
}

extern "C" void magcl_pending_free(PendingScalar* p) { delete p; }

// 4. libtorch's CPU matrix products run in MKL (statically linked into libtorch_cpu, its
//    symbols exported). MKL chooses its optimised kernels only when
//    `mkl_serv_intel_cpu_true()` reports an Intel CPU; on AMD CPUs that support the same
//    AVX2/FMA instructions it otherwise falls back to generic kernels at about half the
//    speed (measured on the 2-core AMD EPYC dev box: sgemm 2708 × 512 × 2708 at 93 against
//    160 GFLOP/s with two threads, benchmarks/README.md). Every executable linking this
//    library exports this definition (build.rs), and the dynamic linker resolves
//    libtorch's call to it ahead of MKL's own. Which kernels MKL then runs is still decided
//    from the CPU's feature flags, so a CPU without AVX2 keeps its baseline kernels; on
//    Intel CPUs nothing changes. MAGCL_MKL_VENDOR_CHECK=1 restores MKL's own answer (for
//    reproducing, bit for bit, AMD runs made before this override existed).
extern "C" int mkl_serv_intel_cpu_true() {
  static const int answer = [] {
    const char* v = std::getenv("MAGCL_MKL_VENDOR_CHECK");
    if (v != nullptr && std::strcmp(v, "1") == 0) {
      using Check = int (*)();
      auto original = reinterpret_cast<Check>(dlsym(RTLD_NEXT, "mkl_serv_intel_cpu_true"));
      return original != nullptr ? original() : 0;
    }
    return 1;
  }();
  return answer;
}

// 7. libtorch's default CPU generator, read and restored for training checkpoints
//    (src/experiment/checkpoint.rs): the one random operator training uses, RReLU in
//    training mode (the node-level `paper` propagation), draws from it epoch after epoch.
//    Both return -1 on failure (a buffer too small, a state of the wrong size).
extern "C" int64_t magcl_cpu_rng_state(uint8_t* out, int64_t cap) {
  try {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    at::Tensor s = gen.get_state().contiguous();
    const int64_t n = s.numel();
    if (n > cap) return -1;
    std::memcpy(out, s.data_ptr<uint8_t>(), static_cast<size_t>(n));
    return n;
  } catch (...) {
    return -1;
  }
}

extern "C" int magcl_set_cpu_rng_state(const uint8_t* data, int64_t len) {
  try {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    at::Tensor s = at::empty({len}, at::kByte);
    std::memcpy(s.data_ptr<uint8_t>(), data, static_cast<size_t>(len));
    gen.set_state(s);
    return 0;
  } catch (...) {
    return -1;
  }
}

// 7b. The default generator of an accelerator (`device_type`, a c10::DeviceType code, and
//     `index`), read and restored as 7 does the CPU's: on a GPU, RReLU in training mode
//     draws its slopes from the GPU's generator. Device-generic (at::Context's default
//     generator; CUDA's state is its seed and Philox offset): nothing CUDA-specific is
//     compiled here. Both return -1 on failure, with the message in `err`.
extern "C" int64_t magcl_device_rng_state(int8_t device_type, int8_t index, uint8_t* out,
                                          int64_t cap, char* err, size_t err_len) {
  try {
    auto gen = at::globalContext().defaultGenerator(
        c10::Device(static_cast<c10::DeviceType>(device_type), index));
    std::lock_guard<std::mutex> lock(gen.mutex());
    at::Tensor s = gen.get_state().contiguous();
    const int64_t n = s.numel();
    TORCH_CHECK(n <= cap, "generator state of ", n, " bytes, more than ", cap);
    std::memcpy(out, s.data_ptr<uint8_t>(), static_cast<size_t>(n));
    return n;
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return -1;
  }
}

extern "C" int magcl_set_device_rng_state(int8_t device_type, int8_t index,
                                          const uint8_t* data, int64_t len, char* err,
                                          size_t err_len) {
  try {
    auto gen = at::globalContext().defaultGenerator(
        c10::Device(static_cast<c10::DeviceType>(device_type), index));
    std::lock_guard<std::mutex> lock(gen.mutex());
    at::Tensor s = at::empty({len}, at::kByte);
    std::memcpy(s.data_ptr<uint8_t>(), data, static_cast<size_t>(len));
    gen.set_state(s);
    return 0;
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return -1;
  }
}

// 8. One step of libtorch's Adam (torch/csrc/api/src/optim/adam.cpp, `Adam::step`) or,
//    with `decoupled`, AdamW (adamw.cpp), on one parameter that has a gradient, with its
//    first and second moments held by the caller (src/methods/optim.rs, `TensorAdam`) and
//    `step` its step count including this step. The same operators with the same scalars
//    in the same order as libtorch's optimisers, so the same bits on every device; what
//    differs is only who keeps the moments: here the caller, where a training checkpoint
//    can save and restore them. Returns 0, or 1 with the message in `err`.
extern "C" int magcl_adam_step(const at::Tensor* param, const at::Tensor* exp_avg,
                               const at::Tensor* exp_avg_sq, int64_t step, double lr,
                               double beta1, double beta2, double eps, double weight_decay,
                               int decoupled, char* err, size_t err_len) {
  try {
    at::NoGradGuard no_grad;
    at::Tensor p = *param;
    at::Tensor grad = p.grad();
    TORCH_CHECK(grad.defined(), "adam_step: the parameter has no gradient");
    TORCH_CHECK(step >= 1, "adam_step: step ", step, " (counted from 1)");
    if (decoupled) {
      if (weight_decay != 0) {
        p.mul_(1 - lr * weight_decay);
      }
    } else if (weight_decay != 0) {
      grad = grad.add(p, weight_decay);
    }
    const auto bias_correction1 = 1 - std::pow(beta1, step);
    const auto bias_correction2 = 1 - std::pow(beta2, step);
    at::Tensor m = *exp_avg;
    at::Tensor v = *exp_avg_sq;
    m.mul_(beta1).add_(grad, 1 - beta1);
    v.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
    at::Tensor denom = (v.sqrt() / std::sqrt(bias_correction2)).add_(eps);
    const auto step_size = lr / bias_correction1;
    p.addcdiv_(m, denom, -step_size);
    return 0;
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return 1;
  }
}

// 9. libtorch computes its float unary operators (exp, log, sqrt, tanh, ...) on contiguous
//    CPU tensors with MKL's vector-math (VML) functions, each thread of a parallel region
//    on its own chunk, asking for high accuracy (`aten/src/ATen/cpu/vml.h`). The MKL
//    linked into libtorch picks each function's kernel (instruction set and accuracy)
//    lazily, at that function's first call, and when that first call runs on two threads
//    at once one of them may run a low-accuracy kernel over its whole chunk
//    (pytorch/pytorch#188792, which reports it gone from MKL 2025 on). Seen here as a
//    rare, run-to-run change of a SimGRACE run's losses at two and three threads:
//    InfoNCE's first exp of 128 × 128 similarities, split over two threads, came back with
//    relative errors up to 1e-4 on the second thread's half in about 3 runs in 1,000
//    (tests/determinism.rs).
//    Calling each function once, on one element of each float kind, on one thread, before
//    any work, settles every choice; later calls use the resolved kernels, so nothing
//    else changes. The list holds every operator that vml.h has sent to MKL in recent
//    libtorch versions, and cosh and sinh besides (a superset is harmless: an operator
//    computed without MKL is computed once more on one element). Idempotent and
//    thread-safe.
extern "C" int magcl_resolve_vector_math(char* err, size_t err_len) {
  static std::once_flag once;
  try {
    std::call_once(once, [] {
      at::NoGradGuard no_grad;
      for (const auto kind : {at::kFloat, at::kDouble}) {
        // one element: below every grain size, so it runs on the calling thread alone
        const at::Tensor x = at::full({1}, 0.5, at::TensorOptions().dtype(kind));
        (void)at::abs(x); (void)at::acos(x); (void)at::asin(x); (void)at::atan(x);
        (void)at::cos(x); (void)at::cosh(x); (void)at::erf(x); (void)at::erfc(x);
        (void)at::erfinv(x); (void)at::exp(x); (void)at::expm1(x); (void)at::log(x);
        (void)at::log10(x); (void)at::log1p(x); (void)at::log2(x); (void)at::sin(x);
        (void)at::sinh(x); (void)at::sqrt(x); (void)at::tan(x); (void)at::tanh(x);
        (void)at::trunc(x);
      }
    });
    return 0;
  } catch (const std::exception& e) {
    copy_message(e, err, err_len);
    return 1;
  }
}
