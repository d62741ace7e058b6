//! A position solved by the bounded search: its exact thermograph and the options that were searched.

use crate::endgame::cgt::{Rational, Thermograph, attaining_wall};
use crate::go::{Color, Point};
use std::borrow::Cow;
use std::sync::Arc;

/// One searched option of a node, in the node's frame.
#[derive(Clone, Debug)]
pub struct ThermoBranch {
    pub point: Point,
    /// Prisoners taken by the move, Black's minus White's (territory scoring). The child's thermograph
    /// counts from the child's position, without them.
    pub prisoners: i64,
    /// The position after the move; `None` for a ko retake valued by the ko rule.
    pub child: Option<Arc<ThermoNode>>,
    /// The move captures a ko, or is the ko retake valued by rule.
    pub ko: bool,
    /// The ko rule's count, for a retake valued by rule.
    ko_value: Option<Rational>,
}

impl ThermoBranch {
    pub(super) fn to(point: Point, child: Arc<ThermoNode>, prisoners: i64, ko: bool) -> Self {
        ThermoBranch {
            point,
            prisoners,
            child: Some(child),
            ko,
            ko_value: None,
        }
    }

    pub(super) fn ko_rule(point: Point, value: Rational) -> Self {
        ThermoBranch {
            point,
            prisoners: 0,
            child: None,
            ko: true,
            ko_value: Some(value),
        }
    }

    /// The option's thermograph in the node's frame (the child's moved by the prisoners).
    pub fn thermograph(&self) -> Thermograph {
        match (&self.child, self.ko_value) {
            (Some(child), _) if self.prisoners == 0 => child.thermograph.clone(),
            (Some(child), _) => child.thermograph.shifted(Rational::integer(self.prisoners)),
            (None, value) => Thermograph::number(value.unwrap_or(Rational::ZERO)),
        }
    }

    /// The option's thermograph in the node's frame, borrowed from the child where no prisoners move it.
    pub fn view(&self) -> Cow<'_, Thermograph> {
        match &self.child {
            Some(child) if self.prisoners == 0 => Cow::Borrowed(&child.thermograph),
            _ => Cow::Owned(self.thermograph()),
        }
    }

    /// The option's mean in the node's frame.
    pub fn mean(&self) -> Rational {
        match (&self.child, self.ko_value) {
            (Some(child), _) => child.thermograph.mean + Rational::integer(self.prisoners),
            (None, value) => value.unwrap_or(Rational::ZERO),
        }
    }
}

/// A solved position: its exact thermograph and the options the search had to look at. Options proved
/// unable to reach the thermograph's walls up to its temperature are not kept (`pruned` counts them).
#[derive(Clone, Debug)]
pub struct ThermoNode {
    pub thermograph: Thermograph,
    black: Vec<ThermoBranch>,
    white: Vec<ThermoBranch>,
    pub pruned: usize,
}

impl ThermoNode {
    pub(super) fn new(
        thermograph: Thermograph,
        black: Vec<ThermoBranch>,
        white: Vec<ThermoBranch>,
        pruned: usize,
    ) -> Self {
        ThermoNode {
            thermograph,
            black,
            white,
            pruned,
        }
    }

    pub(super) fn leaf(value: Rational) -> Self {
        ThermoNode::new(Thermograph::number(value), Vec::new(), Vec::new(), 0)
    }

    /// A position with no option searched: settled, finished or valued as it stands.
    pub fn is_leaf(&self) -> bool {
        self.black.is_empty() && self.white.is_empty()
    }

    pub fn is_number(&self) -> bool {
        self.thermograph.temperature < Rational::ZERO
    }

    pub fn branches(&self, color: Color) -> &[ThermoBranch] {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The searched moves of `color` whose options attain the wall at the node's temperature.
    pub fn best(&self, color: Color) -> Vec<&ThermoBranch> {
        let t = self.thermograph.temperature;
        attaining_wall(self.branches(color), color, t, ThermoBranch::thermograph)
    }
}
