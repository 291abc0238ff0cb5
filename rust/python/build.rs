//! Lays the code a small first fit runs together at the start of `.text` on Linux, where
//! the kernel maps a library's code 64 KiB at a time: `hot_text.ld` (written by
//! `benches/hot_text.py`, which says why) is handed to the linker as an `INSERT`
//! script, so the default layout holds for everything else. Skipped when the build
//! chose its own linker (mold and gold take no `INSERT` script) or when
//! `TREEOPT_NO_HOT_TEXT` is set.

fn main() {
    println!("cargo:rerun-if-changed=hot_text.ld");
    println!("cargo:rerun-if-env-changed=TREEOPT_NO_HOT_TEXT");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let own_linker = flags.contains("fuse-ld") || flags.contains("linker") || std::env::var_os("RUSTC_LINKER").is_some();
    if os != "linux" || own_linker || std::env::var_os("TREEOPT_NO_HOT_TEXT").is_some() {
        return;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-link-arg-cdylib=-Wl,-T,{dir}/hot_text.ld");
}
