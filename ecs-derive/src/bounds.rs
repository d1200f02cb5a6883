//! Where-clauses for the generated impls.

use proc_macro2::TokenStream as TokenStream2;
use quote::{quote, ToTokens};
use syn::{Generics, WherePredicate};

/// The type's own where-clause plus `Self: Send + Sync + 'static` (what every component and
/// bundle must be) plus `extra`.
pub(crate) fn where_clause(
    generics: &Generics,
    extra: impl IntoIterator<Item = WherePredicate>,
) -> TokenStream2 {
    let own = generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter());
    let predicates: Vec<TokenStream2> = own
        .map(ToTokens::to_token_stream)
        .chain(std::iter::once(
            quote!(Self: ::core::marker::Send + ::core::marker::Sync + 'static),
        ))
        .chain(extra.into_iter().map(|p| p.to_token_stream()))
        .collect();
    quote!(where #(#predicates),*)
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn where_clause_keeps_the_own_predicates_first() {
        let mut generics: Generics = parse_quote!(<T>);
        generics.where_clause = Some(parse_quote!(where T: Clone));
        let extra: WherePredicate = parse_quote!(T: Copy);
        let clause = where_clause(&generics, [extra]).to_string();
        assert_eq!(
            clause,
            "where T : Clone , Self : :: core :: marker :: Send + :: core :: marker :: Sync \
             + 'static , T : Copy"
        );
    }
}
