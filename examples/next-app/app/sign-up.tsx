'use client';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';

export function SignUp() {
  const router = useRouter();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const res = await fetch('/api/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    if (res.ok) router.refresh();
    else setError(`sign-up failed (${res.status})`);
  }
  return (
    <form onSubmit={submit} data-testid="signup">
      <label>
        Email <input data-testid="email" name="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
      </label>
      <button data-testid="signup-submit" type="submit">
        Sign up
      </button>
      {error && <p role="alert">{error}</p>}
    </form>
  );
}
