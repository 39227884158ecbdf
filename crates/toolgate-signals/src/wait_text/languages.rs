//! Waits stated in the languages APIs answer their users in besides English: the
//! words put before a time to come and the names of the units, so that Omie's
//! "Aguarde 60 segundos" (Portuguese), "Espere 30 segundos" and "Inténtelo de nuevo en
//! 2 minutos" (Spanish), "Réessayez dans 45 secondes" (French), "Versuchen Sie es in
//! 30 Sekunden erneut" (German) and "Повторите через 5 секунд" (Russian) read as the
//! English phrasings do.
//!
//! Source of the first: <https://ajuda.omie.com.br/pt-BR/articles/8001888-tratando-os-erros-de-api>
//! ("Requisições redundantes liberadas a cada 60 segundos"). The triggers are matched
//! whole, in the lowered text, like the English ones, and an amount needs its unit.

use crate::num::TimeUnit;

/// Words after which an amount of time is a time to come (the English `in`, `after`):
/// Portuguese `em`, `após`; Spanish `en`, `tras`; French `dans`, `après`; German
/// `nach` (its `in` is the English word); Russian `через`.
pub(super) const TRIGGERS: [&str; 8] = [
    " em ",
    " após ",
    " en ",
    " tras ",
    " dans ",
    " après ",
    " nach ",
    " через ",
];

/// Words that tell the caller to wait, followed by the amount (the English `wait`,
/// `try again in`): Portuguese and Spanish `aguarde`, `espere`; French `attendez`,
/// `réessayez dans`; German `warten sie`; Russian `подождите`, `повторите через`,
/// `попробуйте через`, `повторите запрос через`.
pub(super) const TOLD: [&str; 9] = [
    " aguarde ",
    " espere ",
    " attendez ",
    " réessayez dans ",
    " warten sie ",
    " подождите ",
    " повторите через ",
    " попробуйте через ",
    " повторите запрос через ",
];

/// The unit a word in one of these languages names (lowercase); `None` for English
/// words, which [`TimeUnit::from_word`] knows.
pub(super) fn unit(word: &str) -> Option<TimeUnit> {
    Some(match word {
        "milissegundos" | "milisegundos" | "millisecondes" | "millisekunden" | "мс" => {
            TimeUnit::Millis
        }
        "segundo" | "segundos" | "seconde" | "secondes" | "sekunde" | "sekunden" | "секунда"
        | "секунды" | "секунду" | "секунд" | "сек" => TimeUnit::Seconds,
        "minuto" | "minutos" | "minuten" | "минута" | "минуты" | "минуту" | "минут" | "мин" => {
            TimeUnit::Minutes
        }
        "hora" | "horas" | "heure" | "heures" | "stunde" | "stunden" | "час" | "часа" | "часов" => {
            TimeUnit::Hours
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{told_to_wait, wait_in};

    #[test]
    fn waits_told_in_other_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "ERROR: Consumo redundante detectado. Aguarde 60 segundos para realizar uma nova requisição.",
                Some(s(60)),
            ),
            (
                "Limite excedido, tente novamente em 2 minutos.",
                Some(s(120)),
            ),
            ("Demasiadas solicitudes. Espere 30 segundos.", Some(s(30))),
            ("Inténtelo de nuevo en 2 minutos", Some(s(120))),
            ("Trop de requêtes. Réessayez dans 45 secondes.", Some(s(45))),
            (
                "Zu viele Anfragen. Bitte versuchen Sie es in 30 Sekunden erneut.",
                Some(s(30)),
            ),
            (
                "Слишком много запросов. Повторите через 5 секунд.",
                Some(s(5)),
            ),
            ("Превышен лимит, подождите 1 минуту", Some(s(60))),
            ("Límite alcanzado; se restablece tras 1 hora", Some(s(3600))),
            // An amount without a unit, or a unit without an amount, is no wait.
            ("Aguarde 60 para realizar uma nova requisição.", None),
            ("Aguarde alguns segundos.", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }

    #[test]
    fn instructions_to_wait_in_other_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Aguarde 60 segundos.", Some(s(60))),
            (
                "Por favor, espere 10 segundos antes de reintentar.",
                Some(s(10)),
            ),
            ("Veuillez patienter : attendez 2 minutes.", Some(s(120))),
            ("Bitte warten Sie 15 Sekunden.", Some(s(15))),
            ("Повторите запрос через 3 секунды.", Some(s(3))),
            // Saying when something happens is not telling the caller to wait.
            ("O código expira em 5 minutos.", None),
            ("El enlace caduca en 10 minutos.", None),
            ("Le jeton expire dans 30 secondes.", None),
        ] {
            assert_eq!(told_to_wait(text), want, "{text}");
        }
    }
}
