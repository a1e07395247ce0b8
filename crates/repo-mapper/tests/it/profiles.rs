//! The three profiles on one repository: `spec` ranks as the SPEC says, `default` departs
//! from it where `cargo xtask relevance` measured a gain (`docs/relevance.md`), and both
//! stay within the budget.

use std::path::{Path, PathBuf};

use repo_mapper::{CacheLocation, Config, MapRequest, Profile, RepoMap, Tokenizer, list_files};

/// `app/main.py` uses `Cart` and `Parser` twice and `Invoice` once; a README and a test
/// beside them.
fn shop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("README.md", "# Shop\n");
    write(
        "app/main.py",
        "from app import billing, cart, parse\n\
         c = cart.Cart()\nd = cart.Cart()\np = parse.Parser()\nq = parse.Parser()\n\
         i = billing.Invoice()\n",
    );
    write(
        "app/billing.py",
        "class Invoice:\n    def total(self):\n        return 0\n",
    );
    write(
        "app/cart.py",
        "class Cart:\n    def add(self, item):\n        pass\n",
    );
    write(
        "app/parse.py",
        "class Parser:\n    def feed(self, text):\n        pass\n",
    );
    write(
        "tests/test_cart.py",
        "from app.cart import Cart\n\ndef check_cart():\n    Cart().add(1)\n",
    );
    dir
}

fn first_file(root: &Path, profile: Profile, message: Option<&str>, budget: usize) -> String {
    let mut config = Config::new(root).with_profile(profile);
    config.cache = CacheLocation::Memory;
    config.map_tokens = budget;
    let mut request = MapRequest::new(list_files(root, None));
    if let Some(m) = message {
        request = request.with_message(m);
    }
    let out = RepoMap::new(config).map(&request).expect("a map");
    assert!(
        Tokenizer::Cl100kBase.count(&out.text) <= budget,
        "{profile:?} over budget"
    );
    out.report.entries[0].file.clone()
}

#[test]
fn spec_puts_important_files_first_and_default_ranks_them_in_place() {
    let dir = shop();
    assert_eq!(
        first_file(dir.path(), Profile::Spec, None, 1024),
        "README.md"
    );
    assert_ne!(
        first_file(dir.path(), Profile::Default, None, 1024),
        "README.md"
    );
}

#[test]
fn default_ranks_the_files_the_message_names_first() {
    let dir = shop();
    let message = Some("Invoice totals are rounded twice");
    let spec = first_file(dir.path(), Profile::Spec, message, 1024);
    assert_eq!(spec, "README.md", "the SPEC reads no message");
    assert_eq!(
        first_file(dir.path(), Profile::Default, message, 1024),
        "app/billing.py"
    );
    for budget in [40, 80, 200] {
        first_file(dir.path(), Profile::Default, message, budget);
    }
}

/// Issue 45 (behaviour.md §7.5.13): the words of an issue template's environment
/// section and its HTML comments are not read; the same words in the issue's prose are.
#[test]
fn default_reads_an_issue_without_its_template() {
    let dir = shop();
    let cart_words = "cart Cart carts, cart version 1.1";
    let prose = format!("Invoice totals are rounded twice.\n\n{cart_words}\n");
    assert_ne!(
        first_file(dir.path(), Profile::Default, Some(&prose), 1024),
        "app/billing.py"
    );
    let issue = format!(
        "<!-- Describe the bug; name the cart you use -->\nInvoice totals are rounded \
         twice.\n\n**Environment**\n\n- {cart_words}\n"
    );
    assert_eq!(
        first_file(dir.path(), Profile::Default, Some(&issue), 1024),
        "app/billing.py"
    );
}

#[test]
fn profiles_are_named_default_spec_and_aider() {
    let names: Vec<&str> = repo_mapper::PROFILES
        .iter()
        .map(|&p| repo_mapper::profile_name(p))
        .collect();
    assert_eq!(names, ["default", "spec", "aider"]);
    let config = Config::new(PathBuf::from("/r")).with_profile(Profile::Spec);
    assert_eq!(config.relevance(), repo_mapper::Relevance::SPEC);
    assert_eq!(config.rank_config().dialect, repo_mapper::Dialect::Default);
    assert_eq!(
        Config::new("/r").relevance(),
        repo_mapper::Relevance::MEASURED
    );
    let aider = Config::new("/r").with_profile(Profile::Aider).rank_config();
    assert_eq!(aider.dialect, repo_mapper::Dialect::Aider);
}
