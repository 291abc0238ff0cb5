//! The one error type of the core: every message says what to do about it.

use std::fmt;

/// An input the core cannot work with; the message is meant for the end user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    /// Builds an error from any message.
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Result with the core's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
