// Sparse (CSR) × dense product with a precomputed transpose for the backward pass.
//
// libtorch's CPU sparse-CSR matmul transposes (and re-sorts) the sparse matrix on every
// backward call, which dominates small-graph training steps. Here the caller supplies
// both A (rows = destinations) and Aᵀ once per batch; forward computes A·x and backward
// Aᵀ·g, each a plain row loop parallelised over rows with ATen's thread pool.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cstring>

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// One output row: o = Σ_k val[k] · x[col[k]]. Cloned for AVX2/FMA with a run-time choice.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void csr_row(int64_t begin, int64_t end, const int64_t* __restrict ci,
             const float* __restrict vv, const float* __restrict xp, float* __restrict o,
             int64_t d) {
  for (int64_t j = 0; j < d; ++j) o[j] = 0.0f;
  for (int64_t k = begin; k < end; ++k) {
    const float w = vv[k];
    const float* __restrict xr = xp + ci[k] * d;
    for (int64_t j = 0; j < d; ++j) o[j] += w * xr[j];
  }
}

at::Tensor csr_times_dense(const at::Tensor& rowptr, const at::Tensor& col,
                           const at::Tensor& val, const at::Tensor& x_in) {
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
  at::parallel_for(0, n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) csr_row(rp[i], rp[i + 1], ci, vv, xp, op + i * d, d);
  });
  return out;
}

struct CsrMatmul : public torch::autograd::Function<CsrMatmul> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& rowptr,
                            const at::Tensor& col, const at::Tensor& val,
                            const at::Tensor& t_rowptr, const at::Tensor& t_col,
                            const at::Tensor& t_val) {
    ctx->save_for_backward({t_rowptr, t_col, t_val});
    return csr_times_dense(rowptr, col, val, x);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    const auto saved = ctx->get_saved_variables();
    at::Tensor gx = csr_times_dense(saved[0], saved[1], saved[2], grad[0]);
    return {gx, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

// Returns a new tensor (owned by the caller), or null with the message copied into `err`.
extern "C" at::Tensor* magcl_csr_matmul(const at::Tensor* x, const at::Tensor* rowptr,
                                        const at::Tensor* col, const at::Tensor* val,
                                        const at::Tensor* t_rowptr, const at::Tensor* t_col,
                                        const at::Tensor* t_val, char* err, size_t err_len) {
  try {
    return new at::Tensor(CsrMatmul::apply(*x, *rowptr, *col, *val, *t_rowptr, *t_col, *t_val));
  } catch (const std::exception& e) {
    if (err_len > 0) {
      std::strncpy(err, e.what(), err_len - 1);
      err[err_len - 1] = '\0';
    }
    return nullptr;
  }
}
