//! The workbench: a ratatui app in the Elm shape. [`app::App`] is the state, [`action::Action`] everything
//! it consumes, [`update::update`] the only place state changes, [`render::draw`] a pure function of the
//! state; [`runtime`] connects the terminal, the files and the jobs.

pub mod action;
pub mod annotation;
pub mod app;
pub mod config;
pub mod confirm;
pub mod endgame;
pub mod feed;
pub mod keymap;
pub mod mouse;
pub mod overlay;
pub mod panes;
pub mod render;
pub mod runtime;
pub mod theme;
pub mod update;

#[cfg(test)]
mod annotate_tests;
#[cfg(test)]
mod board_tests;
#[cfg(test)]
mod compare_tests;
#[cfg(test)]
mod endgame_tests;
#[cfg(test)]
mod jobs_tests;
#[cfg(test)]
mod mouse_tests;
#[cfg(test)]
mod moves_tests;
#[cfg(test)]
mod overlay_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
