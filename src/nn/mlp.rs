//! Linear layers with the references' initialisations, MLPs and the projection head.
use tch::nn::{self, Module};
use tch::Tensor;

/// Weight initialisation of linear layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// Xavier-uniform weights, zero bias (GraphCL, SimGRACE, MA-GCL's GCN weights).
    XavierZeroBias,
    /// PyTorch's default: U(−1/√fan_in, 1/√fan_in) for weights and bias (AD-GCL).
    TorchDefault,
}

/// A linear layer `in → out` initialised as `init` says.
pub fn linear(p: nn::Path, input: i64, output: i64, init: Init) -> nn::Linear {
    let cfg = match init {
        Init::XavierZeroBias => {
            let b = (6.0 / (input + output) as f64).sqrt();
            nn::LinearConfig {
                ws_init: nn::Init::Uniform { lo: -b, up: b },
                bs_init: Some(nn::Init::Const(0.0)),
                bias: true,
            }
        }
        Init::TorchDefault => {
            let b = 1.0 / (input as f64).sqrt();
            nn::LinearConfig {
                ws_init: nn::Init::Uniform { lo: -b, up: b },
                bs_init: Some(nn::Init::Uniform { lo: -b, up: b }),
                bias: true,
            }
        }
    };
    nn::linear(p, input, output, cfg)
}

/// Batch normalisation initialised as PyTorch does (weight 1, bias 0).
pub fn batch_norm(p: nn::Path, dim: i64) -> nn::BatchNorm {
    nn::batch_norm1d(
        p,
        dim,
        nn::BatchNormConfig {
            ws_init: nn::Init::Const(1.0),
            bs_init: nn::Init::Const(0.0),
            ..Default::default()
        },
    )
}

/// Linear → ReLU → Linear.
#[derive(Debug)]
pub struct Mlp {
    pub l1: nn::Linear,
    pub l2: nn::Linear,
}

impl Mlp {
    pub fn new(p: nn::Path, input: i64, hidden: i64, output: i64, init: Init) -> Mlp {
        Mlp {
            l1: linear(&p / "0", input, hidden, init),
            l2: linear(&p / "2", hidden, output, init),
        }
    }
}

impl Module for Mlp {
    fn forward(&self, x: &Tensor) -> Tensor {
        self.l2.forward(&self.l1.forward(x).relu())
    }
}

/// The projection head used by the contrastive loss (Linear → ReLU → Linear).
pub type Projector = Mlp;
