//! Errors of the tree-structured isotonic solver. Every bad input is reported as a value,
//! never as a panic.

use std::fmt;

/// What went wrong in a call to [`crate::TreePav`].
#[derive(Debug, Clone, PartialEq)]
pub enum PavError {
    /// The batch has no rows.
    EmptyBatch,
    /// The number of columns is not the node count `2^(D+1) - 1` of a complete binary tree.
    NotACompleteTree { n_nodes: usize },
    /// The tree is deeper than [`crate::MAX_DEPTH`].
    TooDeep { depth: usize },
    /// More values than the solver indexes with 32 bits.
    TooLarge { n_values: usize },
    /// A slice has the wrong length.
    Length {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A value of `q` (or of a gradient) is NaN or infinite.
    NonFinite {
        what: &'static str,
        row: usize,
        node: usize,
    },
    /// `lam` is negative, NaN or infinite.
    BadLambda { lam: f64 },
    /// `backward` was called before a successful `forward`.
    NotSolved,
    /// The working memory for this shape (about `bytes`) could not be allocated.
    OutOfMemory { bytes: usize, n_rows: usize, n_nodes: usize },
}

impl fmt::Display for PavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PavError::EmptyBatch => write!(f, "q has no rows; pass at least one row of node scores"),
            PavError::NotACompleteTree { n_nodes } => write!(
                f,
                "q has {n_nodes} columns, which is not the node count 2**(depth+1) - 1 of a complete binary tree \
                 (1, 3, 7, 15, 31, ...); pass one column per node in breadth-first order"
            ),
            PavError::TooDeep { depth } => write!(
                f,
                "a tree of depth {depth} is too deep; the isotonic solver supports depth <= {}",
                crate::MAX_DEPTH
            ),
            PavError::TooLarge { n_values } => write!(
                f,
                "q has {n_values} values; the isotonic solver handles at most {} per call (use smaller batches)",
                u32::MAX - 1
            ),
            PavError::Length { what, expected, got } => {
                write!(f, "{what} has {got} values but {expected} were expected")
            }
            PavError::NonFinite { what, row, node } => write!(
                f,
                "{what}[{row}, {node}] is NaN or infinite; the isotonic solver needs finite values"
            ),
            PavError::BadLambda { lam } => {
                write!(f, "lam must be a finite number >= 0, got {lam}")
            }
            PavError::NotSolved => write!(f, "backward needs a successful forward pass first"),
            PavError::OutOfMemory { bytes, n_rows, n_nodes } => write!(
                f,
                "the isotonic solver needs about {:.1} GB of working memory for q of shape ({n_rows}, {n_nodes}), \
                 which could not be allocated; pass fewer rows per call or use a shallower tree",
                *bytes as f64 / 1e9
            ),
        }
    }
}

impl std::error::Error for PavError {}
