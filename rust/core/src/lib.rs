//! Shared core of treeopt's solvers: word-level bitsets, the packed binary dataset with
//! rows merged into equivalence classes, and the decision tree model. No Python here.

pub mod bitset;
pub mod dataset;
pub mod error;
pub mod hash;
pub mod io;
pub mod labels;
pub mod numeric;
pub mod tree;

pub use bitset::Bitset;
pub use dataset::{BinaryDataset, Groups};
pub use error::{Error, Result};
pub use numeric::NumericDataset;
pub use tree::{Node, Tree};
