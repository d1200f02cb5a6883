//! bench (in progress)
