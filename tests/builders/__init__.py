"""Small builders of the things tests need: users, plans, cases, answers, log rows."""
