-- Turkish joins German and English as a language a patient's messages are
-- written in (patient_contact.language, the notifier's choice of texts).

-- +goose Up
ALTER TABLE patient_contact DROP CONSTRAINT patient_contact_language_check;
ALTER TABLE patient_contact ADD CONSTRAINT patient_contact_language_check
    CHECK (language IN ('de', 'en', 'tr'));

-- +goose Down
UPDATE patient_contact SET language = 'de' WHERE language = 'tr';
ALTER TABLE patient_contact DROP CONSTRAINT patient_contact_language_check;
ALTER TABLE patient_contact ADD CONSTRAINT patient_contact_language_check
    CHECK (language IN ('de', 'en'));
