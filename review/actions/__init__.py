"""Every change a person makes, one module per subject: `entries`, `plans` (a plan as a
whole), `plan_reviews` (double review of plans), `cases`, `answers`, `reviews` (review
policies and the opinions of a double review of cases and answers), `revisions`, `leases`,
`reviewers` (what a reviewer keeps about themselves). Each action checks what only it knows,
then calls `review.decisions`, which versions the row and appends to the log. Views,
commands and the API call these. Where checking and writing are separate steps, `check_*` or
`is_*` only asks and `do_*` writes."""
