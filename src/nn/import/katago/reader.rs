//! The model file's text and binary tokens read into layers, every size checked before anything is
//! allocated.

use super::*;

/// The token stream of an inflated model file.
pub(super) struct Tokens<'a> {
    pub(super) path: &'a Path,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl Tokens<'_> {
    pub(super) fn error(&self, message: impl Into<String>) -> ModelError {
        ModelError::Format {
            path: self.path.to_path_buf(),
            offset: self.pos,
            message: message.into(),
        }
    }

    pub(super) fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    pub(super) fn word(&mut self, what: &str) -> Result<String, ModelError> {
        self.skip_space();
        let start = self.pos;
        while self.pos < self.bytes.len() && !self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error(format!("the file ends where {what} was expected")));
        }
        String::from_utf8(self.bytes[start..self.pos].to_vec())
            .map_err(|_| self.error(format!("{what} is not text")))
    }

    pub(super) fn int(&mut self, what: &str) -> Result<usize, ModelError> {
        let word = self.word(what)?;
        word.parse().map_err(|_| {
            self.error(format!(
                "{what}: expected a non-negative integer, found `{word}`"
            ))
        })
    }

    pub(super) fn float(&mut self, what: &str) -> Result<f32, ModelError> {
        let word = self.word(what)?;
        word.parse()
            .map_err(|_| self.error(format!("{what}: expected a number, found `{word}`")))
    }

    pub(super) fn flag(&mut self, what: &str) -> Result<bool, ModelError> {
        match self.int(what)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(self.error(format!("{what}: expected 0 or 1, found {other}"))),
        }
    }

    /// A `@BIN@` block of `count` little-endian floats.
    pub(super) fn floats(&mut self, count: usize, what: &str) -> Result<Vec<f32>, ModelError> {
        self.skip_space();
        if !self.bytes[self.pos..].starts_with(b"@BIN@") {
            return Err(self.error(format!(
                "{what}: expected a binary float block (`@BIN@`); text-float `.txt` models are not supported"
            )));
        }
        self.pos += 5;
        let end = count
            .checked_mul(4)
            .and_then(|n| n.checked_add(self.pos))
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.error(format!(
                "{what}: the file ends inside a block of {count} floats"
            )));
        };
        let values: Vec<f32> = self.bytes[self.pos..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if values.iter().any(|v| !v.is_finite()) {
            return Err(self.error(format!("{what}: the weights contain NaN or infinity")));
        }
        self.pos = end;
        Ok(values)
    }

    /// The number of floats a block of these dimensions holds, refused when it cannot be counted.
    pub(super) fn product(&self, dims: &[usize], what: &str) -> Result<usize, ModelError> {
        dims.iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or_else(|| self.error(format!("{what}: dimensions {dims:?} are too large")))
    }

    pub(super) fn expect_end(&mut self) -> Result<(), ModelError> {
        self.skip_space();
        if self.pos != self.bytes.len() {
            return Err(self.error("unexpected data after the value head"));
        }
        Ok(())
    }

    pub(super) fn model(&mut self) -> Result<KataModel, ModelError> {
        let name = self.word("the model name")?;
        let version = self.int("the model version").map_err(|_| {
            self.error(
                "this is not a KataGo model file (a name, then the model version, is expected)",
            )
        })? as u32;
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(ModelError::UnsupportedVersion {
                path: self.path.to_path_buf(),
                version,
                supported: SUPPORTED_VERSIONS,
            });
        }
        let spatial_inputs = self.int("the number of spatial inputs")?;
        let global_inputs = self.int("the number of global inputs")?;
        if (spatial_inputs, global_inputs) != (22, 19) {
            return Err(self.error(format!(
                "version 8 nets take 22 spatial and 19 global inputs, this one says {spatial_inputs} and {global_inputs}"
            )));
        }
        let trunk = self.trunk(spatial_inputs, global_inputs)?;
        let policy = self.policy_head(trunk.trunk_channels)?;
        let value = self.value_head(trunk.trunk_channels)?;
        Ok(KataModel {
            name,
            version,
            spatial_inputs,
            global_inputs,
            trunk,
            policy,
            value,
        })
    }

    pub(super) fn conv(
        &mut self,
        in_expected: usize,
        out_expected: Option<usize>,
    ) -> Result<Conv, ModelError> {
        let name = self.word("a convolution name")?;
        let kernel_y = self.int(&name)?;
        let kernel_x = self.int(&name)?;
        let in_channels = self.int(&name)?;
        let out_channels = self.int(&name)?;
        let dilation_y = self.int(&name)?;
        let dilation_x = self.int(&name)?;
        if kernel_y % 2 == 0 || kernel_x % 2 == 0 {
            return Err(self.error(format!("{name}: kernel {kernel_y}x{kernel_x} is not odd")));
        }
        if kernel_y > MAX_KERNEL || kernel_x > MAX_KERNEL {
            return Err(self.error(format!(
                "{name}: kernel {kernel_y}x{kernel_x} is larger than any board ({MAX_KERNEL} at most)"
            )));
        }
        self.check_channels(&name, in_channels, in_expected, out_channels, out_expected)?;
        let count = self.product(&[kernel_y, kernel_x, in_channels, out_channels], &name)?;
        let hwio = self.floats(count, &name)?;
        // The file is [y][x][in][out]; ONNX wants [out][in][y][x].
        let mut weights_oihw = vec![0.0; hwio.len()];
        for y in 0..kernel_y {
            for x in 0..kernel_x {
                for i in 0..in_channels {
                    for o in 0..out_channels {
                        let from = ((y * kernel_x + x) * in_channels + i) * out_channels + o;
                        let to = ((o * in_channels + i) * kernel_y + y) * kernel_x + x;
                        weights_oihw[to] = hwio[from];
                    }
                }
            }
        }
        Ok(Conv {
            name,
            kernel_y,
            kernel_x,
            in_channels,
            out_channels,
            dilation_y,
            dilation_x,
            weights_oihw,
        })
    }

    pub(super) fn check_channels(
        &self,
        name: &str,
        in_found: usize,
        in_expected: usize,
        out_found: usize,
        out_expected: Option<usize>,
    ) -> Result<(), ModelError> {
        if in_found == 0 || out_found == 0 {
            return Err(self.error(format!(
                "{name}: shape {in_found}->{out_found} has no channels"
            )));
        }
        if in_found != in_expected || out_expected.is_some_and(|o| o != out_found) {
            return Err(self.error(format!(
                "{name}: shape {in_found}->{out_found} does not fit (expected {in_expected}->{})",
                out_expected.map_or("?".to_string(), |o| o.to_string())
            )));
        }
        Ok(())
    }

    /// A batch-norm record and the activation record after it (always ReLU in version 8).
    pub(super) fn norm_act(&mut self, channels: usize) -> Result<Affine, ModelError> {
        let name = self.word("a batch-norm name")?;
        let c = self.int(&name)?;
        if c != channels {
            return Err(self.error(format!("{name}: {c} channels, expected {channels}")));
        }
        let epsilon = self.float(&name)?;
        let has_scale = self.flag(&name)?;
        let has_bias = self.flag(&name)?;
        let mean = self.floats(c, &name)?;
        let variance = self.floats(c, &name)?;
        let scale = if has_scale {
            self.floats(c, &name)?
        } else {
            vec![1.0; c]
        };
        let bias = if has_bias {
            self.floats(c, &name)?
        } else {
            vec![0.0; c]
        };
        let mut merged_scale = vec![0.0; c];
        let mut merged_bias = vec![0.0; c];
        for i in 0..c {
            let s = scale[i] as f64 / (variance[i] as f64 + epsilon as f64).sqrt();
            merged_scale[i] = s as f32;
            merged_bias[i] = (bias[i] as f64 - s * mean[i] as f64) as f32;
        }
        self.word("an activation name")?;
        let learned_parameters = c * (usize::from(has_scale) + usize::from(has_bias));
        Ok(Affine {
            name,
            scale: merged_scale,
            bias: merged_bias,
            learned_parameters,
        })
    }

    pub(super) fn matmul(
        &mut self,
        in_expected: usize,
        out_expected: Option<usize>,
    ) -> Result<MatMul, ModelError> {
        let name = self.word("a matmul name")?;
        let in_channels = self.int(&name)?;
        let out_channels = self.int(&name)?;
        self.check_channels(&name, in_channels, in_expected, out_channels, out_expected)?;
        let count = self.product(&[in_channels, out_channels], &name)?;
        let weights = self.floats(count, &name)?;
        Ok(MatMul {
            name,
            in_channels,
            out_channels,
            weights,
        })
    }

    pub(super) fn bias(&mut self, channels: usize) -> Result<Bias, ModelError> {
        let name = self.word("a bias name")?;
        let c = self.int(&name)?;
        if c != channels {
            return Err(self.error(format!("{name}: {c} channels, expected {channels}")));
        }
        let values = self.floats(c, &name)?;
        Ok(Bias { name, values })
    }

    pub(super) fn trunk(&mut self, spatial: usize, global: usize) -> Result<Trunk, ModelError> {
        self.word("the trunk name")?;
        let num_blocks = self.int("the number of blocks")?;
        let trunk_channels = self.int("the trunk width")?;
        let mid_channels = self.int("the mid width")?;
        let regular_channels = self.int("the regular width")?;
        self.int("the dilated width")?;
        let gpool_channels = self.int("the gpool width")?;
        let initial_conv = self.conv(spatial, Some(trunk_channels))?;
        let global_input = self.matmul(global, Some(trunk_channels))?;
        if [
            trunk_channels,
            mid_channels,
            regular_channels,
            gpool_channels,
        ]
        .contains(&0)
        {
            return Err(self.error("a trunk width is 0"));
        }
        // Each block takes several records of the file: a count the file cannot hold is refused by the
        // loop below, and only a few blocks' room is reserved in advance.
        let mut blocks = Vec::with_capacity(num_blocks.min(64));
        for _ in 0..num_blocks {
            let kind = self.word("a block kind")?;
            let name = self.word("a block name")?;
            blocks.push(match kind.as_str() {
                "ordinary_block" => {
                    let pre_norm = self.norm_act(trunk_channels)?;
                    let regular_conv = self.conv(trunk_channels, Some(mid_channels))?;
                    let mid_norm = self.norm_act(mid_channels)?;
                    let final_conv = self.conv(mid_channels, Some(trunk_channels))?;
                    Block::Ordinary {
                        name,
                        pre_norm,
                        regular_conv,
                        mid_norm,
                        final_conv,
                    }
                }
                "gpool_block" => {
                    let pre_norm = self.norm_act(trunk_channels)?;
                    let regular_conv = self.conv(trunk_channels, Some(regular_channels))?;
                    let gpool_conv = self.conv(trunk_channels, Some(gpool_channels))?;
                    let gpool_norm = self.norm_act(gpool_channels)?;
                    let gpool_to_bias =
                        self.matmul(gpool_channels.saturating_mul(3), Some(regular_channels))?;
                    let mid_norm = self.norm_act(regular_channels)?;
                    let final_conv = self.conv(regular_channels, Some(trunk_channels))?;
                    Block::GlobalPooling {
                        name,
                        pre_norm,
                        regular_conv,
                        gpool_conv,
                        gpool_norm,
                        gpool_to_bias,
                        mid_norm,
                        final_conv,
                    }
                }
                other => {
                    return Err(self.error(format!(
                        "block {name}: kind `{other}` does not exist in version 8 nets"
                    )));
                }
            });
        }
        let tip_norm = self.norm_act(trunk_channels)?;
        Ok(Trunk {
            trunk_channels,
            initial_conv,
            global_input,
            blocks,
            tip_norm,
        })
    }

    pub(super) fn policy_head(&mut self, trunk: usize) -> Result<PolicyHead, ModelError> {
        self.word("the policy head name")?;
        let p1_conv = self.conv(trunk, None)?;
        let p1 = p1_conv.out_channels;
        let g1_conv = self.conv(trunk, None)?;
        let g1 = g1_conv.out_channels;
        let g1_norm = self.norm_act(g1)?;
        let gpool_to_bias = self.matmul(g1.saturating_mul(3), Some(p1))?;
        let p1_norm = self.norm_act(p1)?;
        let p2_conv = self.conv(p1, Some(1))?;
        let gpool_to_pass = self.matmul(g1.saturating_mul(3), Some(1))?;
        Ok(PolicyHead {
            p1_conv,
            g1_conv,
            g1_norm,
            gpool_to_bias,
            p1_norm,
            p2_conv,
            gpool_to_pass,
        })
    }

    pub(super) fn value_head(&mut self, trunk: usize) -> Result<ValueHead, ModelError> {
        self.word("the value head name")?;
        let v1_conv = self.conv(trunk, None)?;
        let v1 = v1_conv.out_channels;
        let v1_norm = self.norm_act(v1)?;
        let v2_mul = self.matmul(v1.saturating_mul(3), None)?;
        let v2 = v2_mul.out_channels;
        let v2_bias = self.bias(v2)?;
        self.word("the v2 activation name")?;
        let v3_mul = self.matmul(v2, Some(3))?;
        let v3_bias = self.bias(3)?;
        let score_mul = self.matmul(v2, Some(4))?;
        let score_bias = self.bias(4)?;
        let ownership_conv = self.conv(v1, Some(1))?;
        Ok(ValueHead {
            v1_conv,
            v1_norm,
            v2_mul,
            v2_bias,
            v3_mul,
            v3_bias,
            score_mul,
            score_bias,
            ownership_conv,
        })
    }
}
