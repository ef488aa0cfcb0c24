import type { PaymentForm } from './api';

/**
 * Spec 02 §4: the returned fields go to the gateway as an ordinary form POST, so the browser
 * navigates there with the signed values exactly as the server produced them. The gateway sends
 * the user back to /topup (return_url) afterwards.
 */
export function submitPaymentForm({ url, params }: PaymentForm): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.style.display = 'none';
  for (const [name, value] of Object.entries(params)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
  form.remove();
}
