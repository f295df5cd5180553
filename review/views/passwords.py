"""Changing one's password, and setting a new one by a mailed link: Django's own views, on the
product's templates (templates/registration/), each change and each reset asked for written to
the security log. Django's views have no signal for either, so each is said here, where the
form was just saved."""

from __future__ import annotations

from django.contrib.auth import views as auth_views

from review import security


class PasswordChange(auth_views.PasswordChangeView):
    def form_valid(self, form):
        response = super().form_valid(form)
        security.record(
            security.Kind.PASSWORD_CHANGED,
            self.request.user.get_username(),
            request=self.request,
            detail="changed by its owner, who gave the old one",
        )
        return response


class PasswordReset(auth_views.PasswordResetView):
    """Answers the same (a redirect to "check your mail") whether or not an account has the
    address, so the page tells nobody which addresses have one; the log, which only staff
    read, says which it was."""

    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def form_valid(self, form):
        email = form.cleaned_data["email"]
        # The accounts Django mails a link to: active, with a usable password.
        names = [user.get_username() for user in form.get_users(email)]
        response = super().form_valid(form)
        for name in names:
            security.record(
                security.Kind.PASSWORD_RESET_ASKED, name, request=self.request, detail=email
            )
        if not names:
            security.record(
                security.Kind.PASSWORD_RESET_ASKED,
                request=self.request,
                detail=f"{email}: no account can be reset by this address, nothing was sent",
            )
        return response


class PasswordResetConfirm(auth_views.PasswordResetConfirmView):
    def form_valid(self, form):
        response = super().form_valid(form)
        security.record(
            security.Kind.PASSWORD_CHANGED,
            form.user.get_username(),
            request=self.request,
            detail="set by a mailed reset link",
        )
        return response
