//! The binary's interfaces that scripts rely on.

use std::process::Command;

fn idv(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_idv")).args(args).env_remove("IDV_MASTER_KEY").output().expect("idv runs")
}

#[test]
fn keys_create_prints_one_json_object_and_list_never_prints_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = idv(&["keys", "create", "--client", "acme", "--data-dir", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one line on stdout: {stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let obj = v.as_object().unwrap();
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["access_key_id", "client_id", "secret_key"]);
    let secret = v["secret_key"].as_str().unwrap();
    assert!(secret.len() >= 40);

    let list = idv(&["keys", "list", "--data-dir", d]);
    let listed = String::from_utf8(list.stdout).unwrap();
    assert!(listed.contains(v["access_key_id"].as_str().unwrap()));
    assert!(!listed.contains(secret), "list never shows a secret");
    // The secret is not on disk in the clear either.
    let db = std::fs::read(dir.path().join("idv.db")).unwrap();
    assert!(!db.windows(secret.len()).any(|w| w == secret.as_bytes()));

    let revoke = idv(&["keys", "revoke", v["access_key_id"].as_str().unwrap(), "--data-dir", d]);
    assert!(revoke.status.success());
    let list = String::from_utf8(idv(&["keys", "list", "--data-dir", d]).stdout).unwrap();
    assert!(list.contains("\"revoked\":true"));
    assert!(!idv(&["keys", "revoke", "AKNOPE", "--data-dir", d]).status.success());
}

#[test]
fn a_backend_not_compiled_in_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = idv(&["keys", "list", "--data-dir", dir.path().to_str().unwrap(), "--store", "mysql://x"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("mysql://x"));
}

#[test]
fn keypairs_create_list_rotate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = idv(&["keypairs", "create", "--client", "acme", "--data-dir", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["key_pair_id", "public_key"]);
    use base64::Engine as _;
    let der = base64::engine::general_purpose::STANDARD.decode(v["public_key"].as_str().unwrap()).unwrap();
    assert!(idv_crypto::device::validate_public_key_der(&der).is_ok(), "a usable RSA public key");

    let rotated: serde_json::Value =
        serde_json::from_slice(&idv(&["keypairs", "rotate", "--client", "acme", "--data-dir", d]).stdout).unwrap();
    assert_ne!(rotated["key_pair_id"], v["key_pair_id"]);
    let list = String::from_utf8(idv(&["keypairs", "list", "--data-dir", d]).stdout).unwrap();
    let rows: Vec<serde_json::Value> = list.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 2);
    let active: Vec<_> = rows.iter().filter(|r| r["active"] == true).map(|r| r["key_pair_id"].clone()).collect();
    assert_eq!(active, vec![rotated["key_pair_id"].clone()]);
    assert!(!list.contains("PRIVATE"), "only public parts are listed");
}

fn json_lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

#[tokio::test]
async fn users_and_devices_deactivate_reactivate_delete() {
    use idv_store::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let key: serde_json::Value = serde_json::from_slice(&idv(&["keys", "create", "--client", "acme", "--data-dir", d]).stdout).unwrap();
    let client_id = key["client_id"].as_str().unwrap().to_string();
    {
        let store = idv_store::sqlite::SqliteStore::open_url(&format!("sqlite://{d}/idv.db")).unwrap();
        let user = idv_store::FaceUserRecord { face_auth_id: "img".into(), ..idv_store::FaceUserRecord::new("fu", client_id.clone(), "u1", "ak", "t") };
        store.put_face_user(&user).await.unwrap();
        let device = idv_store::DeviceRecord {
            customer_user_device_id: "cud-1".into(),
            client_id: client_id.clone(),
            cus_user_id: "u1".into(),
            device_id: "phone".into(),
            key_pair_id: "kp".into(),
            public_der: vec![1],
            deactivated: false,
            created_at: "t".into(),
        };
        store.create_device(&device).await.unwrap();
    }
    let out = json_lines(&idv(&["users", "deactivate", "--client", "acme", "--user", "u1", "--data-dir", d]));
    assert_eq!((out.len(), out[0]["is_deactivated"].as_bool()), (1, Some(true)));
    let out = json_lines(&idv(&["users", "reactivate", "--client", &client_id, "--user", "u1", "--data-dir", d]));
    assert_eq!(out[0]["is_deactivated"], false);
    assert!(!idv(&["users", "deactivate", "--client", "acme", "--user", "nobody", "--data-dir", d]).status.success());

    let out = json_lines(&idv(&["devices", "deactivate", "--client", "acme", "--user", "u1", "--device", "phone", "--data-dir", d]));
    assert_eq!((out[0]["customer_user_device_id"].as_str(), out[0]["deactivated"].as_bool()), (Some("cud-1"), Some(true)));
    let out = json_lines(&idv(&["devices", "reactivate", "--client", "acme", "--user", "u1", "--device", "cud-1", "--data-dir", d]));
    assert_eq!(out[0]["deactivated"], false);
    let out = json_lines(&idv(&["devices", "delete", "--client", "acme", "--user", "u1", "--device", "phone", "--data-dir", d]));
    assert_eq!(out[0]["deleted"], true);
    let gone = idv(&["devices", "delete", "--client", "acme", "--user", "u1", "--device", "phone", "--data-dir", d]);
    assert!(!gone.status.success());
    assert!(String::from_utf8_lossy(&gone.stderr).contains("no device"));
}
