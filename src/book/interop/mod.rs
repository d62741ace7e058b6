//! Reading and writing other formats: KataGo's `.katabook`, static HTML pages like KataGo's, and SGF.

pub mod html;
pub mod katabook;
pub mod sgf;
