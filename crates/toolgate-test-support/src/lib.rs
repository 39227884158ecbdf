//! Test support shared by toolgate's crates: real servers on loopback, started for one
//! test and stopped when it drops them. Never a dependency of anything but tests.

pub mod postgres;
pub mod redis;

pub use postgres::TestPostgres;
pub use redis::RedisServer;
