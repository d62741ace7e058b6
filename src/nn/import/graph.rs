//! Builds the ONNX graph of a version-8 KataGo network.
//!
//! Inputs: `spatial` `[N, 22, H, W]` and `global` `[N, 19]` (KataGo's V7 features; plane 0 is the
//! on-board mask, so any board up to the tensor's size works). Outputs are the raw heads, before
//! KataGo's post-processing (softmax, score scaling, tanh), which [`crate::nn::output`] applies:
//! `policy` `[N, 1, H, W]`, `policy_pass` `[N, 1]`, `value` `[N, 3]` (win, loss, no-result logits),
//! `score` `[N, 4]` (mean, stdev before softplus, lead, variance-time), `ownership` `[N, 1, H, W]`.
//! All values are from the side to move's point of view, as in KataGo.

use super::katago::{Affine, Bias, Block, Conv, KataModel, MatMul};
use super::onnx_proto::*;

/// The graph's tensor names, shared with the session code.
pub mod names {
    pub const SPATIAL: &str = "spatial";
    pub const GLOBAL: &str = "global";
    pub const POLICY: &str = "policy";
    pub const POLICY_PASS: &str = "policy_pass";
    pub const VALUE: &str = "value";
    pub const SCORE: &str = "score";
    pub const OWNERSHIP: &str = "ownership";
    /// The trunk's last feature map (after its final norm and ReLU), `[N, C, H, W]`: only in the graph
    /// [`super::build_trunk`] writes, which has no heads.
    pub const TRUNK: &str = "trunk_features";
}

const OPSET: i64 = 17;
const IR_VERSION: i64 = 8;

/// Emits nodes and initializers with unique names.
struct Builder {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    counter: usize,
}

impl Builder {
    fn fresh(&mut self, hint: &str) -> String {
        self.counter += 1;
        format!("{hint}#{}", self.counter)
    }

    fn node(
        &mut self,
        op: &str,
        inputs: &[&str],
        hint: &str,
        attributes: Vec<AttributeProto>,
    ) -> String {
        let out = self.fresh(hint);
        self.node_to(op, inputs, &out, attributes);
        out
    }

    fn node_to(&mut self, op: &str, inputs: &[&str], out: &str, attributes: Vec<AttributeProto>) {
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.to_string()],
            name: format!("{op}:{out}"),
            op_type: op.to_string(),
            attribute: attributes,
        });
    }

    fn floats(&mut self, hint: &str, dims: &[i64], values: &[f32]) -> String {
        let name = self.fresh(hint);
        let raw_data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.initializers.push(TensorProto {
            dims: dims.to_vec(),
            data_type: FLOAT,
            name: name.clone(),
            raw_data,
        });
        name
    }

    fn ints(&mut self, hint: &str, values: &[i64]) -> String {
        let name = self.fresh(hint);
        let raw_data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.initializers.push(TensorProto {
            dims: vec![values.len() as i64],
            data_type: INT64,
            name: name.clone(),
            raw_data,
        });
        name
    }

    fn scalar(&mut self, hint: &str, value: f32) -> String {
        self.floats(hint, &[], &[value])
    }

    fn conv(&mut self, x: &str, conv: &Conv) -> String {
        self.conv_node(x, conv, &conv.weights_oihw, None)
    }

    /// BN as a per-channel affine map, then ReLU, then the on-board mask.
    fn norm_relu_mask(&mut self, x: &str, norm: &Affine, mask: &str) -> String {
        let c = norm.scale.len() as i64;
        let s = self.floats(&format!("{}/scale", norm.name), &[1, c, 1, 1], &norm.scale);
        let b = self.floats(&format!("{}/bias", norm.name), &[1, c, 1, 1], &norm.bias);
        let scaled = self.node("Mul", &[x, &s], &norm.name, vec![]);
        let shifted = self.node("Add", &[&scaled, &b], &norm.name, vec![]);
        let relu = self.node("Relu", &[&shifted], &norm.name, vec![]);
        self.node("Mul", &[&relu, mask], &norm.name, vec![])
    }

    /// A convolution with the batch norm after it folded in (weights scaled per output channel, the
    /// norm's shift as the bias), so ORT sees Conv+ReLU, which it fuses, and no elementwise pair between.
    fn conv_folded(&mut self, x: &str, conv: &Conv, norm: &Affine) -> String {
        let per_out = conv.in_channels * conv.kernel_y * conv.kernel_x;
        let weights: Vec<f32> = conv
            .weights_oihw
            .iter()
            .enumerate()
            .map(|(i, w)| w * norm.scale[i / per_out])
            .collect();
        self.conv_node(x, conv, &weights, Some(norm))
    }

    /// One ONNX Conv with `conv`'s geometry and the given weights, and the norm's shift as its bias.
    fn conv_node(
        &mut self,
        x: &str,
        conv: &Conv,
        weights: &[f32],
        bias: Option<&Affine>,
    ) -> String {
        let w = self.floats(
            &conv.name,
            &[
                conv.out_channels as i64,
                conv.in_channels as i64,
                conv.kernel_y as i64,
                conv.kernel_x as i64,
            ],
            weights,
        );
        let mut inputs = vec![x.to_string(), w];
        if let Some(norm) = bias {
            inputs.push(self.floats(
                &format!("{}/bias", norm.name),
                &[conv.out_channels as i64],
                &norm.bias,
            ));
        }
        let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        // "Same" zero padding: half the dilated kernel on each side.
        let pad_y = (conv.kernel_y / 2 * conv.dilation_y) as i64;
        let pad_x = (conv.kernel_x / 2 * conv.dilation_x) as i64;
        self.node(
            "Conv",
            &inputs,
            &conv.name,
            vec![
                ints_attr(
                    "kernel_shape",
                    &[conv.kernel_y as i64, conv.kernel_x as i64],
                ),
                ints_attr(
                    "dilations",
                    &[conv.dilation_y as i64, conv.dilation_x as i64],
                ),
                ints_attr("pads", &[pad_y, pad_x, pad_y, pad_x]),
            ],
        )
    }

    fn relu_mask(&mut self, x: &str, mask: &str, hint: &str) -> String {
        let relu = self.node("Relu", &[x], hint, vec![]);
        self.node("Mul", &[&relu, mask], hint, vec![])
    }

    /// A dense layer whose output channels are scaled (by the batch norm that follows the sum it feeds).
    fn matmul_scaled(&mut self, x: &str, m: &MatMul, scale: &[f32]) -> String {
        let weights: Vec<f32> = m
            .weights
            .iter()
            .enumerate()
            .map(|(i, w)| w * scale[i % m.out_channels])
            .collect();
        let w = self.floats(
            &m.name,
            &[m.in_channels as i64, m.out_channels as i64],
            &weights,
        );
        self.node("MatMul", &[x, &w], &m.name, vec![])
    }

    fn matmul(&mut self, x: &str, m: &MatMul) -> String {
        let w = self.floats(
            &m.name,
            &[m.in_channels as i64, m.out_channels as i64],
            &m.weights,
        );
        self.node("MatMul", &[x, &w], &m.name, vec![])
    }

    fn bias(&mut self, x: &str, b: &Bias) -> String {
        let v = self.floats(&b.name, &[b.values.len() as i64], &b.values);
        self.node("Add", &[x, &v], &b.name, vec![])
    }

    /// Adds `[N, C]` to every point of `[N, C, H, W]`.
    fn add_channel_bias(&mut self, x: &str, per_channel: &str) -> String {
        let shape = self.ints("bias_shape", &[0, -1, 1, 1]);
        let reshaped = self.node("Reshape", &[per_channel, &shape], "bias4d", vec![]);
        self.node("Add", &[x, &reshaped], "biased", vec![])
    }
}

fn ints_attr(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        ints: values.to_vec(),
        r#type: ATTR_INTS,
        ..Default::default()
    }
}

fn int_attr(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        i: value,
        r#type: ATTR_INT,
        ..Default::default()
    }
}

/// Tensors every pooling layer needs, computed once from the mask.
struct Pooling {
    mask: String,
    /// `mask - 1`: 0 on the board, -1 off it, so a max ignores off-board points after ReLU.
    mask_minus_one: String,
    /// `[N, 1]`: number of on-board points.
    count: String,
    /// `[N, 1]`: `(sqrt(count) - 14) / 10`.
    size_factor: String,
    /// `[N, 1]`: `size_factor² - 0.1`.
    size_factor_quadratic: String,
    spatial_axes: String,
}

impl Pooling {
    fn new(b: &mut Builder, mask: String) -> Pooling {
        let spatial_axes = b.ints("hw_axes", &[2, 3]);
        let one = b.scalar("one", 1.0);
        let mask_minus_one = b.node("Sub", &[&mask, &one], "mask_minus_one", vec![]);
        let count4 = b.node(
            "ReduceSum",
            &[&mask, &spatial_axes],
            "count",
            vec![int_attr("keepdims", 0)],
        );
        let count = count4; // [N, 1]: the mask has one channel
        let root = b.node("Sqrt", &[&count], "sqrt_count", vec![]);
        let fourteen = b.scalar("fourteen", 14.0);
        let tenth = b.scalar("tenth", 0.1);
        let shifted = b.node("Sub", &[&root, &fourteen], "sqrt_minus_14", vec![]);
        let size_factor = b.node("Mul", &[&shifted, &tenth], "size_factor", vec![]);
        let squared = b.node(
            "Mul",
            &[&size_factor, &size_factor],
            "size_factor_sq",
            vec![],
        );
        let size_factor_quadratic =
            b.node("Sub", &[&squared, &tenth], "size_factor_quadratic", vec![]);
        Pooling {
            mask,
            mask_minus_one,
            count,
            size_factor,
            size_factor_quadratic,
            spatial_axes,
        }
    }

    fn mean(&self, b: &mut Builder, x: &str) -> String {
        let sum = b.node(
            "ReduceSum",
            &[x, &self.spatial_axes],
            "pool_sum",
            vec![int_attr("keepdims", 0)],
        );
        b.node("Div", &[&sum, &self.count], "pool_mean", vec![])
    }

    /// `[mean, mean·size_factor, max]` over the board: `[N, 3C]`.
    fn global(&self, b: &mut Builder, x: &str) -> String {
        let mean = self.mean(b, x);
        let scaled = b.node("Mul", &[&mean, &self.size_factor], "pool_scaled", vec![]);
        let shifted = b.node("Add", &[x, &self.mask_minus_one], "pool_for_max", vec![]);
        let max = b.node(
            "ReduceMax",
            &[&shifted],
            "pool_max",
            vec![ints_attr("axes", &[2, 3]), int_attr("keepdims", 0)],
        );
        b.node(
            "Concat",
            &[&mean, &scaled, &max],
            "pooled",
            vec![int_attr("axis", 1)],
        )
    }

    /// The value head's variant: `[mean, mean·size_factor, mean·(size_factor² - 0.1)]`.
    fn value(&self, b: &mut Builder, x: &str) -> String {
        let mean = self.mean(b, x);
        let scaled = b.node("Mul", &[&mean, &self.size_factor], "vpool_scaled", vec![]);
        let quadratic = b.node(
            "Mul",
            &[&mean, &self.size_factor_quadratic],
            "vpool_quadratic",
            vec![],
        );
        b.node(
            "Concat",
            &[&mean, &scaled, &quadratic],
            "vpooled",
            vec![int_attr("axis", 1)],
        )
    }
}

fn tensor_info(name: &str, dims: &[Result<i64, &str>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Ok(v) => DimensionValue::Value(*v),
                Err(p) => DimensionValue::Param(p.to_string()),
            }),
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: FLOAT,
                shape: Some(TensorShapeProto { dim }),
            }),
        }),
    }
}

/// The trunk: the mask, the global pooling it shares with the heads, and the final feature map.
fn trunk(b: &mut Builder, model: &KataModel) -> (String, String, Pooling) {
    // The mask is spatial plane 0.
    let starts = b.ints("mask_start", &[0]);
    let ends = b.ints("mask_end", &[1]);
    let axes = b.ints("mask_axis", &[1]);
    let mask = b.node(
        "Slice",
        &[names::SPATIAL, &starts, &ends, &axes],
        "mask",
        vec![],
    );
    let pool = Pooling::new(b, mask);
    let mask = pool.mask.clone();

    // Trunk.
    let t = &model.trunk;
    let x = b.conv(names::SPATIAL, &t.initial_conv);
    let g = b.matmul(names::GLOBAL, &t.global_input);
    let mut trunk = b.add_channel_bias(&x, &g);
    for block in &t.blocks {
        let residual = match block {
            Block::Ordinary {
                pre_norm,
                regular_conv,
                mid_norm,
                final_conv,
                ..
            } => {
                let a = b.norm_relu_mask(&trunk, pre_norm, &mask);
                let r = b.conv_folded(&a, regular_conv, mid_norm);
                let m = b.relu_mask(&r, &mask, &mid_norm.name);
                b.conv(&m, final_conv)
            }
            Block::GlobalPooling {
                pre_norm,
                regular_conv,
                gpool_conv,
                gpool_norm,
                gpool_to_bias,
                mid_norm,
                final_conv,
                ..
            } => {
                // midBN(regular(a) + pooled·W) = regular'(a) + pooled·W' with the norm folded into both.
                let a = b.norm_relu_mask(&trunk, pre_norm, &mask);
                let r = b.conv_folded(&a, regular_conv, mid_norm);
                let gc = b.conv_folded(&a, gpool_conv, gpool_norm);
                let ga = b.relu_mask(&gc, &mask, &gpool_norm.name);
                let pooled = pool.global(b, &ga);
                let bias = b.matmul_scaled(&pooled, gpool_to_bias, &mid_norm.scale);
                let r = b.add_channel_bias(&r, &bias);
                let m = b.relu_mask(&r, &mask, &mid_norm.name);
                b.conv(&m, final_conv)
            }
        };
        trunk = b.node("Add", &[&trunk, &residual], "trunk", vec![]);
    }
    let tip = b.norm_relu_mask(&trunk, &t.tip_norm, &mask);
    (tip, mask, pool)
}

/// The trunk alone (no heads), its final feature map the output [`names::TRUNK`]: what the local-move
/// network's head reads.
pub fn build_trunk(model: &KataModel) -> Vec<u8> {
    let mut b = Builder {
        nodes: Vec::new(),
        initializers: Vec::new(),
        counter: 0,
    };
    let (n, h, w) = (Err("batch"), Err("height"), Err("width"));
    let (tip, _, _) = trunk(&mut b, model);
    b.node_to("Identity", &[&tip], names::TRUNK, vec![]);
    let output = vec![tensor_info(
        names::TRUNK,
        &[n, Ok(model.trunk.trunk_channels as i64), h, w],
    )];
    serialise(model, b, output)
}

/// The ONNX model for `model`, serialised.
pub fn build(model: &KataModel) -> Vec<u8> {
    let mut b = Builder {
        nodes: Vec::new(),
        initializers: Vec::new(),
        counter: 0,
    };
    let (n, h, w) = (Err("batch"), Err("height"), Err("width"));
    let (tip, mask, pool) = trunk(&mut b, model);

    // Policy head.
    let p = &model.policy;
    let p1 = b.conv_folded(&tip, &p.p1_conv, &p.p1_norm);
    let g1 = b.conv_folded(&tip, &p.g1_conv, &p.g1_norm);
    let g1 = b.relu_mask(&g1, &mask, &p.g1_norm.name);
    let gp = pool.global(&mut b, &g1);
    let p_bias = b.matmul_scaled(&gp, &p.gpool_to_bias, &p.p1_norm.scale);
    let p1 = b.add_channel_bias(&p1, &p_bias);
    let p1 = b.relu_mask(&p1, &mask, &p.p1_norm.name);
    let policy = b.conv(&p1, &p.p2_conv);
    b.node_to("Identity", &[&policy], names::POLICY, vec![]);
    let pass = b.matmul(&gp, &p.gpool_to_pass);
    b.node_to("Identity", &[&pass], names::POLICY_PASS, vec![]);

    // Value head.
    let v = &model.value;
    let v1 = b.conv_folded(&tip, &v.v1_conv, &v.v1_norm);
    let v1 = b.relu_mask(&v1, &mask, &v.v1_norm.name);
    let vp = pool.value(&mut b, &v1);
    let v2 = b.matmul(&vp, &v.v2_mul);
    let v2 = b.bias(&v2, &v.v2_bias);
    let v2 = b.node("Relu", &[&v2], "v2_relu", vec![]);
    let value = b.matmul(&v2, &v.v3_mul);
    let value = b.bias(&value, &v.v3_bias);
    b.node_to("Identity", &[&value], names::VALUE, vec![]);
    let score = b.matmul(&v2, &v.score_mul);
    let score = b.bias(&score, &v.score_bias);
    b.node_to("Identity", &[&score], names::SCORE, vec![]);
    let ownership = b.conv(&v1, &v.ownership_conv);
    b.node_to("Identity", &[&ownership], names::OWNERSHIP, vec![]);

    let output = vec![
        tensor_info(names::POLICY, &[n, Ok(1), h, w]),
        tensor_info(names::POLICY_PASS, &[n, Ok(1)]),
        tensor_info(names::VALUE, &[n, Ok(3)]),
        tensor_info(names::SCORE, &[n, Ok(4)]),
        tensor_info(names::OWNERSHIP, &[n, Ok(1), h, w]),
    ];
    serialise(model, b, output)
}

/// The graph of `b`'s nodes with the model's inputs and `output`, as an ONNX model, serialised.
fn serialise(model: &KataModel, b: Builder, output: Vec<ValueInfoProto>) -> Vec<u8> {
    let (n, h, w) = (Err("batch"), Err("height"), Err("width"));
    let graph = GraphProto {
        node: b.nodes,
        name: model.name.clone(),
        initializer: b.initializers,
        input: vec![
            tensor_info(names::SPATIAL, &[n, Ok(model.spatial_inputs as i64), h, w]),
            tensor_info(names::GLOBAL, &[n, Ok(model.global_inputs as i64)]),
        ],
        output,
    };
    let proto = ModelProto {
        ir_version: IR_VERSION,
        producer_name: "tengen".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        doc_string: format!(
            "KataGo network {} (model version {}), imported by tengen",
            model.name, model.version
        ),
        graph: Some(graph),
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: OPSET,
        }],
    };
    prost::Message::encode_to_vec(&proto)
}
