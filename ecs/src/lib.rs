//! facade (in progress)
