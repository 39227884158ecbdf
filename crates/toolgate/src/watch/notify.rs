//! Incident notification (being written).
