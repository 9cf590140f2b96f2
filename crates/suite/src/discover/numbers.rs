//! The workspace's numbers and users: `phone_number_id`, `phone_number`,
//! `other_phone_number_id`, `user_id`, `available_number_country`.

use serde_json::{Value, json};

use super::fields::{data, is_e164, str_at};
use super::fixture::Fixture;
use super::reason::Reason;
use super::request::{Request, RequestError};
use super::session::Discoverer;

/// (id, E.164) of each number of the workspace.
pub(crate) type Numbers = Vec<(String, String)>;

impl Discoverer<'_> {
    /// `GET /phone-numbers`: (id, E.164) of each number; picks `phone_number_id`.
    pub(crate) async fn phone_numbers(&mut self) -> Result<Numbers, RequestError> {
        // READINGS 4.4: no range is stated for this list, so the narrowest stated for any (1-50).
        let items = self
            .walk(&Request::new("/phone-numbers", &[("maxResults", "50")]), 3)
            .await?;
        let numbers: Numbers = items
            .iter()
            .filter_map(|n| {
                let id = str_at(n, "/id")?.to_string();
                let number = str_at(n, "/phoneNumber").unwrap_or_default().to_string();
                id.starts_with("PN").then_some((id, number))
            })
            .collect();
        if self.wants(Fixture::PhoneNumberId) && !numbers.is_empty() {
            self.busiest_number(&numbers).await;
        }
        Ok(numbers)
    }

    /// `phone_number_id`: the number with the most calls and messages on a first page, the one
    /// most fixtures hang off, read back.
    async fn busiest_number(&mut self, numbers: &Numbers) {
        let mut best: Option<(usize, String)> = None;
        let mut asked = Vec::new();
        for (id, _) in numbers.iter().take(6) {
            let page = [("phoneNumberId", id.as_str()), ("maxResults", "100")];
            let calls = self.get(&Request::new("/calls", &page)).await;
            let msgs = self.get(&Request::new("/messages", &page)).await;
            let count = |r: &Result<Value, RequestError>| r.as_ref().map_or(0, |v| data(v).len());
            let score = count(&calls) + count(&msgs);
            asked.push(format!("{id}: {score}"));
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, id.clone()));
            }
        }
        let Some((_, id)) = best else {
            return;
        };
        let at = Request::new(format!("/phone-numbers/{id}"), &[]);
        match self.get(&at).await {
            Ok(v) if str_at(&v, "/data/id") == Some(id.as_str()) => self.found(
                Fixture::PhoneNumberId,
                json!(id),
                format!(
                    "GET /phone-numbers, then GET /phone-numbers/{id}: the number with the most calls and messages on a first page of GET /calls and GET /messages by phoneNumberId ({})",
                    asked.join(", ")
                ),
            ),
            Ok(_) => self.not_found(Fixture::PhoneNumberId, Reason::AnotherId { at }),
            Err(e) => self.not_found(Fixture::PhoneNumberId, e),
        }
    }

    /// `phone_number`, `other_phone_number_id`, `user_id`, `available_number_country`.
    pub(crate) async fn number_details(&mut self, pn: &str, numbers: &Numbers) {
        if self.wants(Fixture::PhoneNumber) {
            self.phone_number(pn).await;
        }
        if self.wants(Fixture::OtherPhoneNumberId) {
            self.other_phone_number(pn, numbers).await;
        }
        if self.wants(Fixture::UserId) {
            self.user(pn).await;
        }
        if self.wants(Fixture::AvailableNumberCountry) {
            self.available_number_country(pn, numbers).await;
        }
    }

    /// `phone_number`: the E.164 `phoneNumber` of `phone_number_id`.
    async fn phone_number(&mut self, pn: &str) {
        let at = Request::new(format!("/phone-numbers/{pn}"), &[]);
        match self.get(&at).await {
            Ok(v) => match str_at(&v, "/data/phoneNumber").filter(|n| is_e164(n)) {
                Some(n) => self.found(
                    Fixture::PhoneNumber,
                    json!(n),
                    format!("GET /phone-numbers/{pn}: its `phoneNumber`"),
                ),
                None => self.not_found(Fixture::PhoneNumber, Reason::NoE164 { at }),
            },
            Err(e) => self.not_found(Fixture::PhoneNumber, e),
        }
    }

    /// `other_phone_number_id`: the first other number of the list, read back.
    async fn other_phone_number(&mut self, pn: &str, numbers: &Numbers) {
        let Some(id) = numbers
            .iter()
            .find(|(id, _)| id != pn)
            .map(|(id, _)| id.clone())
        else {
            return self.not_found(Fixture::OtherPhoneNumberId, Reason::NoOtherNumber);
        };
        let at = Request::new(format!("/phone-numbers/{id}"), &[]);
        match self.get(&at).await {
            Ok(v) if str_at(&v, "/data/id") == Some(id.as_str()) => self.found(
                Fixture::OtherPhoneNumberId,
                json!(id),
                format!(
                    "GET /phone-numbers, then GET /phone-numbers/{id}: a number other than phone_number_id"
                ),
            ),
            Ok(_) => self.not_found(Fixture::OtherPhoneNumberId, Reason::AnotherId { at }),
            Err(e) => self.not_found(Fixture::OtherPhoneNumberId, e),
        }
    }

    /// `user_id`: the only user of `phone_number_id`, when the key reads what is number-scoped.
    async fn user(&mut self, pn: &str) {
        let path = format!("/phone-numbers/{pn}/users");
        let users = self.get(&Request::new(&path, &[])).await.map(|v| {
            data(&v)
                .iter()
                .filter_map(|u| str_at(u, "/id").map(str::to_string))
                .filter(|id| id.starts_with("US"))
                .collect::<Vec<_>>()
        });
        // The key reads what is number-scoped (Authentication 3): its user is a user of
        // the number. With one user, that user is the key's.
        let scoped = self
            .get(&Request::new(
                "/calls",
                &[("phoneNumberId", pn), ("maxResults", "1")],
            ))
            .await;
        match (users, scoped) {
            (Ok(users), Ok(_)) if users.len() == 1 => self.found(
                Fixture::UserId,
                json!(users[0]),
                format!(
                    "GET {path}: the only user of phone_number_id, and GET /calls?phoneNumberId={pn} (number-scoped, Authentication 3) answers the key: the key's user is a user of the number"
                ),
            ),
            (Ok(users), Ok(_)) if users.len() > 1 => {
                self.not_found(
                    Fixture::UserId,
                    Reason::UsersUnclear {
                        path,
                        users: users.len(),
                    },
                );
                self.guess(Fixture::UserId, format!("one of {}", users.join(", ")));
            }
            (Ok(_), Ok(_)) => self.not_found(Fixture::UserId, Reason::NoUser { path }),
            (Err(e), _) | (_, Err(e)) => self.not_found(Fixture::UserId, e),
        }
    }

    /// `available_number_country`: a country of `phone_number`'s calling code in which
    /// `GET /phone-numbers/available` finds numbers.
    async fn available_number_country(&mut self, pn: &str, numbers: &Numbers) {
        let e164 = self
            .have_str(Fixture::PhoneNumber)
            .or_else(|| {
                numbers
                    .iter()
                    .find(|(id, _)| id == pn)
                    .map(|(_, n)| n.clone())
            })
            .unwrap_or_default();
        let countries = countries_of(&e164);
        let mut why = Reason::UnknownCountry { number: e164 };
        for c in countries {
            let at = Request::new("/phone-numbers/available", &[("country", c)]);
            match self.get(&at).await {
                Ok(v)
                    if v.get("data").is_some_and(|d| match d {
                        Value::Array(a) => !a.is_empty(),
                        Value::Null => false,
                        _ => true,
                    }) =>
                {
                    self.found(
                        Fixture::AvailableNumberCountry,
                        json!(c),
                        format!("GET /phone-numbers/available?country={c}: numbers found (the country of phone_number)"),
                    );
                    break;
                }
                Ok(_) => why = Reason::NoAvailableNumber { at },
                Err(e) => why = e.into(),
            }
        }
        self.not_found(Fixture::AvailableNumberCountry, why);
    }
}

/// ISO country codes of an E.164 number's calling code, the likeliest first (a short table:
/// the country is only a starting point, and the search verifies it).
fn countries_of(e164: &str) -> Vec<&'static str> {
    const CODES: &[(&str, &[&str])] = &[
        ("+1", &["US", "CA"]),
        ("+44", &["GB"]),
        ("+33", &["FR"]),
        ("+49", &["DE"]),
        ("+61", &["AU"]),
        ("+353", &["IE"]),
        ("+34", &["ES"]),
        ("+39", &["IT"]),
        ("+31", &["NL"]),
        ("+46", &["SE"]),
        ("+64", &["NZ"]),
    ];
    let mut best: Option<(&str, &[&str])> = None;
    for (code, cs) in CODES {
        if e164.starts_with(code) && best.is_none_or(|(b, _)| code.len() > b.len()) {
            best = Some((code, cs));
        }
    }
    best.map(|(_, cs)| cs.to_vec()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_names_its_countries() {
        assert_eq!(countries_of("+14155550123"), ["US", "CA"]);
        assert_eq!(countries_of("+447700900123"), ["GB"]);
        assert!(countries_of("+999").is_empty());
    }
}
