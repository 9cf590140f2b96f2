//! The house rules of the crates' sources that a reviewer would otherwise count by hand
//! (docs/architecture.md, Style): no function over 200 lines, and errors typed rather than
//! strings. Each fails with the places.

use syn::visit::Visit;

/// The longest a function may be, from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 200;

/// The `Result<_, String>` that may stay in shipped code: where a string is the product.
const MAX_STRING_ERRORS: usize = 5;

/// Every file of every crate, as shown in messages (`crates/suite/src/cases/loader/mod.rs`),
/// parsed.
fn sources() -> Vec<(String, syn::File)> {
    crate::common::sources::all()
        .into_iter()
        .map(|(shown, text)| {
            let tree =
                syn::parse_file(&text).unwrap_or_else(|e| panic!("{shown} does not parse: {e}"));
            (shown, tree)
        })
        .collect()
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "test")
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Each function's length in lines, `fn` line to closing brace, with its place and name.
struct Lengths<'a> {
    shown: &'a str,
    found: Vec<(usize, String)>,
}

impl Lengths<'_> {
    fn measure(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let first = sig.fn_token.span.start().line;
        let last = block.brace_token.span.close().end().line;
        let place = format!("{}:{first} `{}`", self.shown, sig.ident);
        self.found.push((last + 1 - first, place));
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.measure(&f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.measure(&f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.measure(&f.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// Every `Result<_, String>` written in shipped code (what `#[cfg(test)]` holds is left out).
struct StringErrors<'a> {
    shown: &'a str,
    found: Vec<String>,
}

impl<'ast> Visit<'ast> for StringErrors<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_cfg_test(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
        if seg.ident == "Result" {
            if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                let types: Vec<&syn::Type> = args
                    .args
                    .iter()
                    .filter_map(|a| match a {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect();
                let is_string = |t: &syn::Type| {
                    matches!(t, syn::Type::Path(p) if p.qself.is_none()
                        && p.path.segments.last().is_some_and(|s| s.ident == "String"))
                };
                if let [_, error] = types[..] {
                    if is_string(error) {
                        let line = seg.ident.span().start().line;
                        self.found.push(format!("{}:{line}", self.shown));
                    }
                }
            }
        }
        syn::visit::visit_path_segment(self, seg);
    }
}

#[test]
fn no_function_over_200_lines() {
    let mut all = Vec::new();
    for (shown, tree) in sources() {
        let mut lengths = Lengths {
            shown: &shown,
            found: Vec::new(),
        };
        lengths.visit_file(&tree);
        all.extend(lengths.found);
    }
    assert!(
        all.len() > 500,
        "the scan found only {} functions",
        all.len()
    );
    let mut long: Vec<_> = all.into_iter().filter(|(n, _)| *n > MAX_FN_LINES).collect();
    long.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    let long: Vec<String> = long
        .iter()
        .map(|(n, place)| format!("{place}: {n} lines"))
        .collect();
    assert!(
        long.is_empty(),
        "{} functions of the crates over {MAX_FN_LINES} lines:\n{}",
        long.len(),
        long.join("\n")
    );
}

#[test]
fn few_string_errors() {
    let mut found = Vec::new();
    for (shown, tree) in sources() {
        let mut errors = StringErrors {
            shown: &shown,
            found: Vec::new(),
        };
        errors.visit_file(&tree);
        found.extend(errors.found);
    }
    assert!(
        found.len() <= MAX_STRING_ERRORS,
        "{} `Result<_, String>` in the shipped code of the crates, at most {MAX_STRING_ERRORS}: a typed \
         error (thiserror) instead, unless a string is the product:\n{}",
        found.len(),
        found.join("\n")
    );
}
